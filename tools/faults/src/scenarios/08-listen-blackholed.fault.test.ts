/**
 * Scenario 8: the worker's LISTEN connection silently stops forwarding (a TCP proxy between the
 * worker and PostgreSQL drops its traffic, the sockets left open). Polling covers the gap: work
 * is still picked up within the poll interval; and the worker notices the dead connection and
 * listens again within a stated bound, after which wake-ups are immediate again.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { NotifierHealthCheckMs } from '@cyclone/store-postgres';
import { urlNamed, useFaultDatabase } from '../support/database.js';
import { quantile, reportFigures } from '../support/figures.js';
import { delay, eventually } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { trials } from '../support/trials.js';
import { startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
let proxy: TcpProxy;
beforeAll(async () => {
  proxy = await TcpProxy.start(Number(new URL(db.url).port || 5432), new URL(db.url).hostname);
});
afterEach(() => fixtures.killAll());
afterAll(() => proxy?.close());

const pollMs = 2_000;
/** Documented in docs/reliability.md: two health checks (one probe, its timeout) and a reconnect. */
const relistenBoundMs = 2 * NotifierHealthCheckMs + 5_000;

/** How long after it became available a job's step started (database clock). */
async function pickupMs(runId: string): Promise<number> {
  const [row] = await eventually(
    () =>
      db
        .query<{ ms: number }>(
          `SELECT extract(epoch FROM (s.started_at - s.scheduled_at)) * 1000 AS ms
         FROM cyclone_steps s WHERE s.run_id = $1 AND s.started_at IS NOT NULL`,
          [runId],
        )
        .then((rows) => (rows.length > 0 ? rows : undefined)),
    `run ${runId} to be picked up`,
    30_000,
    20,
  );
  return Number(row!.ms);
}

it('keeps picking up work by polling while LISTEN is blackholed, and listens again within the bound', async () => {
  const samples = trials(5, 3);
  await startWorker(fixtures, db.url, {
    id: 'blackholed',
    url: urlNamed(proxy.urlFor(db.url), 'blackholed'),
    poll: `${pollMs}ms`,
    workMs: '1-5',
  });
  const sample = async (): Promise<number> => {
    const { runId } = await db.client.enqueue('fault.work', {});
    const ms = await pickupMs(runId);
    await delay(100);
    return ms;
  };
  const before: number[] = [];
  for (let i = 0; i < samples; i++) before.push(await sample());

  const listeners = proxy.open((c) => c.listens);
  expect(listeners.length).toBeGreaterThan(0);
  const blackholedAt = Date.now();
  expect(proxy.blackhole((c) => c.listens)).toBe(listeners.length);

  // While the listener is dead, work is still picked up: by polling.
  const during: number[] = [];
  while (proxy.open((c) => c.listens && !c.blackholed).length === 0) {
    during.push(await sample());
    if (Date.now() - blackholedAt > relistenBoundMs) break;
  }
  const relistened = await eventually(
    () => proxy.open((c) => c.listens && !c.blackholed)[0],
    'the worker to listen again',
    Math.max(1, relistenBoundMs - (Date.now() - blackholedAt)),
    20,
  );
  const relistenMs = relistened.listenedAt! - blackholedAt;
  await delay(200);
  const after: number[] = [];
  for (let i = 0; i < samples; i++) after.push(await sample());

  reportFigures('listen-blackholed', {
    poll_interval_ms: pollMs,
    pickup_before_p50_ms: quantile(before, 0.5),
    pickup_during_max_ms: quantile(during, 1),
    jobs_during_gap: during.length,
    relisten_ms: relistenMs,
    pickup_after_p50_ms: quantile(after, 0.5),
  });
  // Polling covered the gap (generous: a poll interval and a margin for a loaded machine).
  for (const ms of during) expect(ms).toBeLessThan(pollMs + 3_000);
  expect(relistenMs).toBeLessThan(relistenBoundMs);
  // Wake-ups are back: most jobs are picked up well before the next poll would have found them.
  expect(quantile(after, 0.5)).toBeLessThan(pollMs / 2);
});
