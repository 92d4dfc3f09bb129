import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import {
  backfillResult,
  fireList,
  scheduleAnswer,
  scheduleChanged,
  scheduleList,
} from '../http/response-schemas.js';
import { backfillBody, firesQuery, scheduleParams, schedulesQuery } from '../http/schemas.js';

/** Recent fires shown with each schedule when the query does not say. */
const DefaultFires = 5;

/**
 * Schedules: `GET /api/schedules` (each with its recent fires), `GET /api/schedules/:id`,
 * `GET /api/schedules/:id/fires`, `POST /api/schedules/:id/pause|resume|backfill`, and
 * `DELETE /api/schedules/:id`.
 */
export function scheduleRoutes(api: Api, ctx: ServerContext): void {
  const { client } = ctx;

  api.route(
    {
      method: 'get',
      path: '/api/schedules',
      operationId: 'listSchedules',
      tag: 'schedules',
      summary: 'Every schedule, with its newest fires',
      query: schedulesQuery,
      answers: { 200: { description: 'The schedules', body: scheduleList } },
      errors: [400, 503],
    },
    async ({ query }) => {
      const limit = query.fires ?? DefaultFires;
      const schedules = await client.listSchedules();
      const withFires = await Promise.all(
        schedules.map(async (schedule) => ({
          ...schedule,
          fires: limit === 0 ? [] : await client.listScheduleFires(schedule.id, { limit }),
        })),
      );
      return { status: 200, body: { schedules: withFires } };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/schedules/{id}',
      operationId: 'getSchedule',
      tag: 'schedules',
      summary: 'One schedule, with its newest fires',
      params: scheduleParams,
      answers: { 200: { description: 'The schedule', body: scheduleAnswer } },
      errors: [404, 503],
    },
    async ({ params }) => {
      const schedule = await client.getSchedule(params.id);
      const fires = await client.listScheduleFires(params.id, { limit: DefaultFires });
      return { status: 200, body: { schedule: { ...schedule, fires } } };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/schedules/{id}/fires',
      operationId: 'listScheduleFires',
      tag: 'schedules',
      summary: "A schedule's fires, newest first",
      params: scheduleParams,
      query: firesQuery,
      answers: { 200: { description: 'The fires', body: fireList } },
      errors: [400, 404, 503],
    },
    async ({ params, query }) => ({
      status: 200,
      body: {
        fires: await client.listScheduleFires(
          params.id,
          query.limit === undefined ? {} : { limit: query.limit },
        ),
      },
    }),
  );

  for (const [name, operationId, summary] of [
    ['pause', 'pauseSchedule', 'Pauses a schedule: its ticks are declined until it resumes'],
    ['resume', 'resumeSchedule', 'Resumes a schedule at its next tick'],
  ] as const) {
    api.route(
      {
        method: 'post',
        path: `/api/schedules/{id}/${name}`,
        operationId,
        tag: 'schedules',
        summary,
        params: scheduleParams,
        answers: { 200: { description: 'The schedule afterwards', body: scheduleChanged } },
        errors: [404, 503],
      },
      async ({ params }) => ({
        status: 200,
        body: {
          schedule:
            name === 'pause'
              ? await client.pauseSchedule(params.id)
              : await client.resumeSchedule(params.id),
        },
      }),
    );
  }

  api.route(
    {
      method: 'delete',
      path: '/api/schedules/{id}',
      operationId: 'deleteSchedule',
      tag: 'schedules',
      summary:
        'Deletes a schedule and the record of its fires: no fire follows; the runs it started stay',
      params: scheduleParams,
      answers: { 200: { description: 'The schedule as it was', body: scheduleChanged } },
      errors: [404, 503],
    },
    async ({ params }) => ({
      status: 200,
      body: { schedule: await client.deleteSchedule(params.id) },
    }),
  );

  api.route(
    {
      method: 'post',
      path: '/api/schedules/{id}/backfill',
      operationId: 'backfillSchedule',
      tag: 'schedules',
      summary: 'One run per tick in [from, to) that has none yet',
      params: scheduleParams,
      body: backfillBody,
      answers: { 200: { description: 'Runs created and ticks skipped', body: backfillResult } },
      errors: [400, 404, 503],
    },
    async ({ params, body }) => ({
      status: 200,
      body: await client.backfill(params.id, { from: body.from, to: body.to }),
    }),
  );
}
