/**
 * Readers of the raw database rows the transition tests assert on. They go through `engine.query`
 * (plain SQL on the test pool), never through the client, so a test checks what was actually
 * written rather than what the read path makes of it.
 */
import { beforeAll } from 'vitest';
import type { EventRecord, RunRecord, StepRecord } from '@cyclone/store-postgres/schema';
import { eventually, testLogger, useEngine } from '../engine.js';

/** The fixture of `useEngine()`. */
export type Engine = ReturnType<typeof useEngine>;

/**
 * `useEngine()`, with an `error` listener on the fixture's pool. pg reports the failure of an idle
 * connection on its pool, and a pool without a listener throws it: the fixture's `afterAll` ends
 * the pool (which resolves before its connections have closed) and then drops the database, which
 * terminates whatever is still open, and that would surface as an unhandled error of the file.
 */
export function useTransitionEngine(): Engine {
  const engine = useEngine();
  beforeAll(() => {
    engine.pool.on('error', (error) =>
      testLogger.debug({ err: error }, 'fixture pool connection lost'),
    );
  });
  return engine;
}

/** A `cyclone_steps` row, with the timestamps as they are stored (the store's one row type). */
export type StepRow = StepRecord;

/** A `cyclone_runs` row. */
export type RunRow = RunRecord;

/** A `cyclone_events` row. */
export type EventRow = EventRecord;

/** The run's row; fails the test when it does not exist. */
export async function runRow(engine: Engine, runId: string): Promise<RunRow> {
  const [row] = await engine.query<RunRow & Record<string, unknown>>(
    'SELECT * FROM cyclone_runs WHERE id = $1',
    [runId],
  );
  if (!row) throw new Error(`no cyclone_runs row ${runId}`);
  return row;
}

/** The node step (not an item task) of a run; fails the test when it does not exist. */
export async function stepRow(engine: Engine, runId: string, node: string): Promise<StepRow> {
  const [row] = await engine.query<StepRow & Record<string, unknown>>(
    'SELECT * FROM cyclone_steps WHERE run_id = $1 AND node = $2 AND item_index IS NULL',
    [runId, node],
  );
  if (!row) throw new Error(`no cyclone_steps row for node ${node} of run ${runId}`);
  return row;
}

/** Every step of a run by node name. */
export async function stepRows(engine: Engine, runId: string): Promise<Record<string, StepRow>> {
  const rows = await engine.query<StepRow & Record<string, unknown>>(
    'SELECT * FROM cyclone_steps WHERE run_id = $1 AND item_index IS NULL ORDER BY created_at, id',
    [runId],
  );
  return Object.fromEntries(rows.map((r) => [r.node, r]));
}

/**
 * The run's history in order, as the events API lists it: the stored events with the two the run
 * row tells (`run_submitted`, `run_completed`), in the shape of `cyclone_events` rows.
 */
export async function eventRows(engine: Engine, runId: string): Promise<EventRow[]> {
  return (await engine.store.listEvents(runId)).map((e) => ({
    id: String(e.id),
    run_id: e.runId,
    step_id: e.stepId,
    node: e.node,
    type: e.type,
    from_state: e.from,
    to_state: e.to,
    trigger: e.trigger,
    error_kind: e.errorKind,
    detail: e.detail as Record<string, unknown> | null,
    at: e.at,
  }));
}

/** `[type, node, from, to, error_kind]` of each event: compact enough to compare whole histories. */
export async function eventTrail(
  engine: Engine,
  runId: string,
): Promise<[string, string | null, string | null, string | null, string | null][]> {
  return (await eventRows(engine, runId)).map((e) => [
    e.type,
    e.node,
    e.from_state,
    e.to_state,
    e.error_kind,
  ]);
}

/**
 * Seconds from the database's `now()` to a timestamp column of a step (negative when it is past),
 * so delays are checked against the clock that wrote them.
 */
export async function secondsFromNow(
  engine: Engine,
  stepId: string,
  column: 'scheduled_at' | 'lease_expires_at',
): Promise<number> {
  const [row] = await engine.query<{ s: number }>(
    `SELECT extract(epoch FROM ${column} - now())::float8 AS s FROM cyclone_steps WHERE id = $1`,
    [stepId],
  );
  if (!row) throw new Error(`no cyclone_steps row ${stepId}`);
  return row.s;
}

/** Row counts of the tables a submission writes. */
export async function tableCounts(
  engine: Engine,
): Promise<{ runs: number; steps: number; events: number }> {
  const [row] = await engine.query<{ runs: number; steps: number; events: number }>(
    `SELECT (SELECT count(*) FROM cyclone_runs)::int AS runs,
            (SELECT count(*) FROM cyclone_steps)::int AS steps,
            (SELECT count(*) FROM cyclone_events)::int AS events`,
  );
  return row!;
}

/** Waits until the step of `node` is in `state`, and returns its row. */
export async function stepReaches(
  engine: Engine,
  runId: string,
  node: string,
  state: string,
  timeoutMs = 10_000,
): Promise<StepRow> {
  return eventually(
    async () => {
      const row = await stepRow(engine, runId, node);
      return row.state === state ? row : undefined;
    },
    `node ${node} of run ${runId} to be ${state}`,
    timeoutMs,
  );
}

/** Waits until the lease of a running step has expired by the database clock. */
export async function leaseExpires(
  engine: Engine,
  stepId: string,
  timeoutMs = 5_000,
): Promise<void> {
  await eventually(
    async () => (await secondsFromNow(engine, stepId, 'lease_expires_at')) < 0,
    `the lease of step ${stepId} to expire`,
    timeoutMs,
  );
}

/** Empties every table a run touches, for tests that sweep the whole database. */
export async function truncateRuns(engine: Engine): Promise<void> {
  await engine.query(
    'TRUNCATE cyclone_runs, cyclone_steps, cyclone_events, cyclone_signals, cyclone_workflows',
  );
}

/** Rejects when `signal` aborts; for handlers that wait to be stopped. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}
