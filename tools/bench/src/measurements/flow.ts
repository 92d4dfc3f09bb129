/**
 * The flow-control measurements (Cyclone only).
 *
 * `flowCost`: what a limit costs the claim. Two sets of N no-op jobs wait in one database, one
 * of a kind with no limit and one of a kind with flow control set (a per-kind cap above what the
 * worker holds claimed, its slots and its local queue, so it never binds; a per-key cap of 1 over
 * 10,000 distinct keys, one job each, so it never binds either; priorities spread over -3..3,
 * no limit; or fair share over 10 keys or over 10,000 keys, the jobs spread over them in turn,
 * where the claim walks the keys in turn and the worker starts its steps in that order). A worker of
 * concurrency C drains a warm-up set (untimed), then each set in turn (the order given, so that
 * rounds can alternate it), timed
 * from its start until the set's steps are all completed. The figure is the limited set's rate as
 * a share of the unlimited one's: what the limit check itself costs.
 *
 * `flowPlan`: the claim's plans at a million available steps of a limited kind (a per-key cap
 * over 10,000 keys, a rate limit, priorities), cloned with `INSERT ... SELECT generate_series`
 * and analysed. One claim of the limited kind and one of an unlimited kind run through the store
 * with their statements captured, then one of the limited kind put under fair share (its limits
 * kept), whose statement must read the keys it serves, not the million claimable steps; each is then run again under `EXPLAIN (ANALYZE, BUFFERS)` in a
 * transaction rolled back. A sequential scan of the steps or runs table fails the measurement.
 */
import pg from 'pg';
import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { migrate, PostgresStore, runOfJob } from '@cyclone/store-postgres';
import { Worker } from '@cyclone/worker';
import { captureStatements, textValue } from '../bound/capture.js';
import { cloneRows, scalar, sleep } from '../shared/db.js';
import { flowKindCap, type FlowMode } from '../shared/types.js';

const plainKind = 'bench.plain';
const flowKind = 'bench.flow';
/** Drained first, untimed: the process's first drain also warms its code up. */
const warmKind = 'bench.warm';
/** Distinct concurrency keys of the per-key cap. */
export const flowKeys = 10_000;
/** Jobs per `submit` call. */
const chunk = 2_000;

/** Distinct concurrency keys the jobs of a mode spread over (none: no key). */
const keysOf: Readonly<Partial<Record<FlowMode, number>>> = {
  'key-cap': flowKeys,
  'fair-10': 10,
  'fair-10k': flowKeys,
};

/** The keys and priorities of the limited set's jobs, and the limit set on its kind. */
function flowJob(mode: FlowMode, i: number): { concurrencyKey: string | null; priority: number } {
  const keys = keysOf[mode];
  return {
    concurrencyKey: keys === undefined ? null : `key-${i % keys}`,
    priority: mode === 'priority' ? (i % 7) - 3 : 0,
  };
}

async function setLimit(client: Client, mode: FlowMode, concurrency: number): Promise<void> {
  if (mode === 'kind-cap')
    await client.setConcurrencyLimit({
      kind: flowKind,
      max: Math.max(flowKindCap, concurrency * 2),
    });
  if (mode === 'key-cap')
    await client.setConcurrencyLimit({ kind: flowKind, max: 1, perKey: true });
  if (mode === 'fair-10' || mode === 'fair-10k') await client.setFairShare({ kind: flowKind });
}

export interface FlowCostResult {
  readonly plainRate: number;
  readonly limitedRate: number;
  /** limitedRate / plainRate */
  readonly ratio: number;
  readonly capped: boolean;
}

/** Drains the steps of `kind` with a fresh worker; seconds from its start to the last completion. */
async function drainKind(
  url: string,
  poolSize: number,
  kind: string,
  n: number,
  concurrency: number,
  capMs: number,
): Promise<{ done: number; seconds: number; capped: boolean }> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => undefined);
  const counter = new pg.Client({ connectionString: url });
  await counter.connect();
  const open = () =>
    scalar(
      counter,
      `SELECT count(*) AS n FROM cyclone_steps WHERE kind = $1 AND state IN ('available', 'running')`,
      [kind],
    );
  // As in the plain drain (drain.ts): handlers count their starts in memory and the database is
  // polled in earnest only once every step has started, so the count (a walk of up to n index
  // entries) does not load the server while the worker drains; a slow poll runs meanwhile.
  let started = 0;
  const worker = new Worker({
    pool,
    concurrency,
    logger: pino({ level: 'silent' }),
    handlers: {
      [kind]: () => {
        started++;
        return Promise.resolve(null);
      },
    },
  });
  const t0 = performance.now();
  await worker.start();
  let left = n;
  let lastPoll = 0;
  try {
    while (performance.now() - t0 < capMs) {
      const eager = started >= n;
      if (eager || performance.now() - lastPoll >= 1_000) {
        lastPoll = performance.now();
        left = await open();
        if (left === 0) break;
      }
      await sleep(eager ? 10 : 5);
    }
    if (left > 0) left = await open();
    return { done: n - left, seconds: (performance.now() - t0) / 1000, capped: left > 0 };
  } finally {
    await worker.stop({ timeout: '5s' });
    await pool.end();
    await counter.end();
  }
}

export async function flowCost(
  url: string,
  poolSize: number,
  options: { mode: FlowMode; n: number; concurrency: number; capMs: number; limitedFirst: boolean },
): Promise<FlowCostResult> {
  await migrate({ connectionString: url });
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => undefined);
  const client = new Client({ pool });
  const store = new PostgresStore({ pool });
  try {
    for (let start = 0; start < options.n; start += chunk) {
      const size = Math.min(chunk, options.n - start);
      const ids = Array.from({ length: size }, (_, k) => start + k);
      await store.submit(ids.map((i) => runOfJob(plainKind, `{"i":${i}}`)));
      await store.submit(
        ids.map((i) => runOfJob(flowKind, `{"i":${i}}`, flowJob(options.mode, i))),
      );
    }
    const warm = Math.max(100, Math.round(options.n / 10));
    await store.submit(Array.from({ length: warm }, (_, i) => runOfJob(warmKind, `{"i":${i}}`)));
    await setLimit(client, options.mode, options.concurrency);
    await pool.query('VACUUM ANALYZE cyclone_steps');
  } finally {
    await client.close();
    await pool.end();
  }
  const drain = (kind: string, n = options.n) =>
    drainKind(url, poolSize, kind, n, options.concurrency, options.capMs);
  await drain(warmKind, Math.max(100, Math.round(options.n / 10)));
  const [plain, limited] = options.limitedFirst
    ? await drain(flowKind).then(async (l) => [await drain(plainKind), l] as const)
    : await drain(plainKind).then(async (p) => [p, await drain(flowKind)] as const);
  const plainRate = plain.done / plain.seconds;
  const limitedRate = limited.done / limited.seconds;
  return {
    plainRate,
    limitedRate,
    ratio: limitedRate / plainRate,
    capped: plain.capped || limited.capped,
  };
}

/** One plan node of `EXPLAIN (FORMAT JSON)`. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly Plans?: readonly PlanNode[];
}

function walk(node: PlanNode, out: PlanNode[] = []): PlanNode[] {
  out.push(node);
  for (const child of node.Plans ?? []) walk(child, out);
  return out;
}

export interface PlanCheck {
  readonly statement: string;
  readonly executionMs: number;
  readonly sharedBuffers: number;
  readonly seqScans: readonly string[];
  readonly indexes: readonly string[];
  /** Rows of `cyclone_steps` the plan's scans read, those their filters removed included. */
  readonly stepRowsRead: number;
}

/**
 * Most rows of `cyclone_steps` the fair claim of 50 may read at a million claimable steps: it
 * visits at most 66 keys (its batch and 16 more), with a probe or two each, and counts the running
 * steps of each visited key against its per-key cap; a scan of the claimable steps reads 1,000,000.
 */
const FairRowsReadBound = 10_000;

/** The steps or runs tables: a sequential scan of either reads the whole queue. */
const bigTables = new Set(['cyclone_steps', 'cyclone_runs']);

/**
 * Runs a captured statement once under `EXPLAIN (ANALYZE, BUFFERS)`, rolled back, with the plan a
 * worker runs: a worker's statements are prepared, and after five runs on a connection Postgres
 * keeps their generic plan (made for any values) when it costs no more than one made for the
 * values, so the check prepares the statement and forces the generic plan.
 */
async function explain(
  pool: pg.Pool,
  statement: { name: string; text: string; values: readonly unknown[] },
): Promise<PlanCheck> {
  const c = await pool.connect();
  // EXECUTE takes its values as SQL (a utility statement has no bound parameters of its own).
  const args = statement.values
    .map((v) => (v === null || v === undefined ? 'NULL' : c.escapeLiteral(textValue(v))))
    .join(', ');
  try {
    await c.query(`PREPARE bench_plan_check AS ${statement.text}`);
    await c.query('BEGIN');
    await c.query('SET LOCAL plan_cache_mode = force_generic_plan');
    const { rows } = await c.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE bench_plan_check${args ? `(${args})` : ''}`,
    );
    await c.query('ROLLBACK');
    const [root] = rows[0]!['QUERY PLAN'] as [
      { Plan: PlanNode & { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number } },
      ...unknown[],
    ];
    const { Plan } = root;
    const nodes = walk(Plan);
    const top = (rows[0]!['QUERY PLAN'] as [{ 'Execution Time': number }])[0];
    return {
      statement: statement.name,
      executionMs: top['Execution Time'],
      sharedBuffers: (Plan['Shared Hit Blocks'] ?? 0) + (Plan['Shared Read Blocks'] ?? 0),
      seqScans: nodes
        .filter((n) => n['Node Type'] === 'Seq Scan')
        .map((n) => n['Relation Name'] ?? '?'),
      indexes: [...new Set(nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : [])))],
      stepRowsRead: nodes
        .filter((n) => n['Relation Name'] === 'cyclone_steps')
        .reduce(
          (sum, n) =>
            sum +
            ((n['Actual Rows'] ?? 0) +
              (n['Rows Removed by Filter'] ?? 0) +
              (n['Rows Removed by Index Recheck'] ?? 0)) *
              (n['Actual Loops'] ?? 1),
          0,
        ),
    };
  } catch (error) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await c.query('DEALLOCATE bench_plan_check').catch(() => undefined);
    c.release();
  }
}

export interface FlowPlanResult {
  readonly limited: PlanCheck;
  readonly unlimited: PlanCheck;
  /** The claim of the limited kind under fair share, limits kept. */
  readonly fair: PlanCheck;
  /** Steps the fair claim took, and the index entries of `cyclone_steps` its plan read. */
  readonly fairClaimed: number;
  readonly fairStepRowsRead: number;
  readonly fillSeconds: number;
}

export async function flowPlan(url: string, n: number): Promise<FlowPlanResult> {
  await migrate({ connectionString: url });
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  const client = new Client({ pool });
  const store = new PostgresStore({ pool });
  try {
    const t0 = performance.now();
    // One available job of each kind through the real path, then clones of the limited one.
    const template = runOfJob(flowKind, '{"i":0}', { concurrencyKey: 'key-0' });
    await store.submit([template, runOfJob(plainKind, '{"i":0}')]);
    const runIdOf = `md5('flow-run-' || g)::uuid`;
    await cloneRows(pool, {
      schema: 'public',
      table: 'cyclone_runs',
      where: 'id = $1',
      whereParams: [template.id],
      n: n - 1,
      overrides: { id: runIdOf },
    });
    await cloneRows(pool, {
      schema: 'public',
      table: 'cyclone_steps',
      where: 'run_id = $1',
      whereParams: [template.id],
      n: n - 1,
      overrides: {
        id: `md5('flow-step-' || g)::uuid`,
        run_id: runIdOf,
        claim_token: 'gen_random_uuid()',
        concurrency_key: `'key-' || (g % ${flowKeys})`,
        priority: `(g % 7) - 3`,
        scheduled_at: `src.scheduled_at - (g % 3600) * interval '1 second'`,
      },
    });
    await pool.query('VACUUM ANALYZE cyclone_runs');
    await pool.query('VACUUM ANALYZE cyclone_steps');
    const fillSeconds = (performance.now() - t0) / 1000;
    await client.setConcurrencyLimit({ kind: flowKind, max: 1, perKey: true });
    await client.setRateLimit({ kind: flowKind, limit: 1_000_000, period: '1m' });
    const available = await scalar(
      pool,
      `SELECT count(*) AS n FROM cyclone_steps WHERE kind = $1 AND state = 'available'`,
      [flowKind],
    );
    if (available !== n) throw new Error(`flow plan: ${available} available steps, expected ${n}`);
    const captured = await captureStatements(
      (name) => name.includes('claim-steps') || name.includes('claim-limited-steps'),
      async () => {
        for (const kind of [flowKind, plainKind]) {
          const claimed = await store.claim({
            kinds: [kind],
            limit: 50,
            workerId: 'bench-plan',
            leaseMs: 60_000,
          });
          if (claimed.length === 0) throw new Error(`flow plan: nothing of ${kind} was claimed`);
        }
      },
    );
    const pick = (what: string) => {
      const found = [...captured.values()].find((s) => s.name.includes(what));
      if (!found) throw new Error(`flow plan: no ${what} statement was sent`);
      return found;
    };
    const limited = await explain(pool, pick('claim-limited-steps'));
    const unlimited = await explain(pool, pick('claim-steps'));
    // The same kind under fair share, its limits kept: the claim walks the keys in turn.
    await client.setFairShare({ kind: flowKind });
    let fairClaimed = 0;
    const capturedFair = await captureStatements(
      (name) => name.includes('claim-fair-steps'),
      async () => {
        const claimed = await store.claim({
          kinds: [flowKind],
          limit: 50,
          workerId: 'bench-plan',
          leaseMs: 60_000,
        });
        fairClaimed = claimed.length;
        if (fairClaimed === 0) throw new Error(`flow plan: nothing was claimed under fair share`);
      },
    );
    const fairStatement = [...capturedFair.values()].find((s) => s.name.includes('claim-fair'));
    if (!fairStatement) throw new Error('flow plan: no claim-fair-steps statement was sent');
    const fair = await explain(pool, fairStatement);
    for (const check of [limited, unlimited, fair]) {
      const scans = check.seqScans.filter((t) => bigTables.has(t));
      if (scans.length > 0)
        throw new Error(`flow plan: ${check.statement} scans ${scans.join(', ')} sequentially`);
    }
    // Reading no more than the keys it serves: a claim of 50 visits at most 66 keys (decision
    // 371), so its reads of the steps are a few per key, never the claimable steps of the kind.
    if (fair.stepRowsRead > FairRowsReadBound)
      throw new Error(
        `flow plan: the fair claim read ${fair.stepRowsRead} rows of cyclone_steps (bound ${FairRowsReadBound})`,
      );
    return {
      limited,
      unlimited,
      fair,
      fairClaimed,
      fairStepRowsRead: fair.stepRowsRead,
      fillSeconds,
    };
  } finally {
    await client.close();
    await pool.end();
  }
}
