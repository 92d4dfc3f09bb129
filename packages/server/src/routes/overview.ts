import { waitPercentileMs } from '@cyclone/core';
import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import { queueList, runStateCounts, statsAnswer, workersAnswer } from '../http/response-schemas.js';
import { statsQuery, windowMs } from '../http/schemas.js';

/** The window `GET /api/stats` reads without `window`. */
const DefaultStatsWindow = '1h';

/**
 * The operators' overview of the whole system: `GET /api/queues` (each kind's queue now),
 * `GET /api/run-states` (runs by state), `GET /api/workers` (live and recently stopped workers, the scheduler's leader) and
 * `GET /api/stats?window=1h` (throughput and queue wait per minute, from what workers flushed).
 */
export function overviewRoutes(api: Api, ctx: ServerContext): void {
  const { store } = ctx.client;

  api.route(
    {
      method: 'get',
      path: '/api/queues',
      operationId: 'listQueues',
      tag: 'overview',
      summary: "Each handler kind's queue now: available, ready, running, held back, later",
      description:
        'Counted by the indexes of available, running and discarded steps; each count stops at ' +
        '100 000 (a figure of exactly that reads "at least"), and at most 100 kinds are listed.',
      answers: { 200: { description: 'The queues, by kind', body: queueList } },
      errors: [503],
    },
    async () => ({ status: 200, body: { queues: await store.queueOverview() } }),
  );

  api.route(
    {
      method: 'get',
      path: '/api/run-states',
      operationId: 'countRunStates',
      tag: 'overview',
      summary: 'How many runs are in each state',
      description:
        'Reads the whole runs table (it has no index on the state, so that moves stay HOT ' +
        'updates), as the `/metrics` runs gauge does.',
      answers: { 200: { description: 'Runs by state', body: runStateCounts } },
      errors: [503],
    },
    async () => {
      const snapshot = await store.collectMetrics({ kinds: [], discoverKinds: false, runs: true });
      return { status: 200, body: { runs: snapshot.runs } };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/workers',
      operationId: 'listWorkers',
      tag: 'overview',
      summary: 'Live workers and what they hold, those that stopped heartbeating, the leader',
      description:
        'A worker is live while it refreshes its registration (every 5 s) within 30 s; one that ' +
        'stops cleanly removes it, one that crashed is listed under `stopped` for an hour.',
      answers: { 200: { description: 'The workers and the leader', body: workersAnswer } },
      errors: [503],
    },
    async () => {
      const overview = await store.workerOverview();
      return {
        status: 200,
        body: {
          now: overview.now,
          live: overview.workers.filter((w) => w.live),
          stopped: overview.workers.filter((w) => !w.live),
          leader: overview.leader,
        },
      };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/stats',
      operationId: 'getStats',
      tag: 'overview',
      summary: 'Per minute: steps completed and failed, queue-wait p50 and p95',
      description:
        'Workers add their counts to the current minute every 5 s and at stop, so the last ' +
        'minute is partial and a count may land in the minute after the one it happened in. ' +
        'Percentiles come from log-scale buckets, within a factor of √2. Kept for 24 hours.',
      query: statsQuery,
      answers: { 200: { description: 'The window, minute by minute', body: statsAnswer } },
      errors: [400, 503],
    },
    async ({ query }) => {
      const window = query.window ?? DefaultStatsWindow;
      const minutes = await store.statsMinutes({
        windowMs: windowMs(window),
        ...(query.kind === undefined ? {} : { kind: query.kind }),
      });
      return {
        status: 200,
        body: {
          window,
          kind: query.kind ?? null,
          minutes: minutes.map((m) => ({
            minute: m.minute,
            completed: m.completed,
            failed: m.failed,
            waitP50Ms: waitPercentileMs(m.waitBuckets, 0.5) ?? null,
            waitP95Ms: waitPercentileMs(m.waitBuckets, 0.95) ?? null,
          })),
        },
      };
    },
  );
}
