import { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../http/context.js';
import { queryObject } from '../http/request-query.js';
import { backfillBody, firesQuery, schedulesQuery } from '../http/schemas.js';
import { parseRequest, readJsonBody } from '../http/validation.js';

/** Recent fires shown with each schedule when the query does not say. */
const DefaultFires = 5;

/**
 * Schedules: `GET /api/schedules` (each with its recent fires), `GET /api/schedules/:id`,
 * `GET /api/schedules/:id/fires`, and `POST /api/schedules/:id/pause|resume|backfill`.
 */
export function scheduleRoutes(ctx: ServerContext): Hono<AppEnv> {
  const { client } = ctx;
  const app = new Hono<AppEnv>();

  app.get('/', async (c) => {
    const q = parseRequest(schedulesQuery, queryObject(c), 'query');
    const limit = q.fires ?? DefaultFires;
    const schedules = await client.listSchedules();
    const withFires = await Promise.all(
      schedules.map(async (schedule) => ({
        ...schedule,
        fires: limit === 0 ? [] : await client.listScheduleFires(schedule.id, { limit }),
      })),
    );
    return c.json({ schedules: withFires });
  });

  app.get('/:id', async (c) => {
    const id = c.req.param('id');
    const schedule = await client.getSchedule(id);
    const fires = await client.listScheduleFires(id, { limit: DefaultFires });
    return c.json({ schedule: { ...schedule, fires } });
  });

  app.get('/:id/fires', async (c) => {
    const q = parseRequest(firesQuery, queryObject(c), 'query');
    const fires = await client.listScheduleFires(
      c.req.param('id'),
      q.limit === undefined ? {} : { limit: q.limit },
    );
    return c.json({ fires });
  });

  app.post('/:id/pause', async (c) =>
    c.json({ schedule: await client.pauseSchedule(c.req.param('id')) }),
  );

  app.post('/:id/resume', async (c) =>
    c.json({ schedule: await client.resumeSchedule(c.req.param('id')) }),
  );

  app.post('/:id/backfill', async (c) => {
    const body = parseRequest(backfillBody, await readJsonBody(c.req.raw), 'body');
    return c.json(await client.backfill(c.req.param('id'), { from: body.from, to: body.to }));
  });

  return app;
}
