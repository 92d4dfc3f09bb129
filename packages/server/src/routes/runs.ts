import {
  NotFoundError,
  parseWorkflowDefinition,
  ValidationError,
  type RunState,
} from '@cyclone/core';
import type { SubmitOptions } from '@cyclone/client';
import { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../http/context.js';
import { queryObject } from '../http/request-query.js';
import { eventsQuery, runsQuery, submitBody } from '../http/schemas.js';
import { parseRequest, readJsonBody } from '../http/validation.js';

/**
 * Reading runs and starting them: `GET /api/runs`, `GET /api/runs/:id` (with its steps),
 * `GET /api/runs/:id/events`, `GET /api/runs/:id/nodes/:node/explain` and `POST /api/runs`.
 */
export function runRoutes(ctx: ServerContext): Hono<AppEnv> {
  const { client } = ctx;
  const app = new Hono<AppEnv>();

  app.get('/', async (c) => {
    const q = parseRequest(runsQuery, queryObject(c, ['state']), 'query');
    const page = await client.listRuns({
      ...(q.state && q.state.length > 0 ? { states: q.state as RunState[] } : {}),
      ...(q.workflow === undefined ? {} : { workflow: q.workflow }),
      ...(q.since === undefined ? {} : { createdAfter: q.since }),
      ...(q.until === undefined ? {} : { createdBefore: q.until }),
      ...(q.parent === undefined ? {} : { parentRunId: q.parent }),
      ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
      ...(q.limit === undefined ? {} : { limit: q.limit }),
    });
    return c.json(page);
  });

  app.get('/:id', async (c) => {
    const id = c.req.param('id');
    const run = await client.getRun(id);
    const steps = await client.listSteps(id);
    return c.json({ run, steps });
  });

  app.get('/:id/events', async (c) => {
    const q = parseRequest(eventsQuery, queryObject(c), 'query');
    const events = await client.events(c.req.param('id'), {
      ...(q.after === undefined ? {} : { after: q.after }),
      ...(q.limit === undefined ? {} : { limit: q.limit }),
    });
    return c.json({ events });
  });

  app.get('/:id/nodes/:node/explain', async (c) => {
    return c.json(await client.explain(c.req.param('id'), c.req.param('node')));
  });

  app.post('/', async (c) => {
    const body = parseRequest(submitBody, await readJsonBody(c.req.raw), 'body');
    // The server holds no workflow code: it submits the definition stored under the name,
    // the newest one a worker, scheduler or client stored.
    const stored = await client.store.storedDefinition(body.workflow);
    if (stored === undefined) throw new NotFoundError('workflow', body.workflow);
    let definition;
    try {
      definition = parseWorkflowDefinition(stored);
    } catch (error) {
      throw new ValidationError('request body', [
        {
          path: 'workflow',
          message: `the stored definition of ${body.workflow} no longer builds: ${error instanceof Error ? error.message : String(error)}`,
        },
      ]);
    }
    // The client validates the options' values (a duration's form, the key's length) and names them.
    const options = (body.options ?? {}) as SubmitOptions;
    const submitted = await client.submit(definition, body.input, options);
    return c.json(submitted, submitted.created ? 201 : 200);
  });

  return app;
}
