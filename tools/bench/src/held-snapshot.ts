/**
 * What a held snapshot does to the claim, and whether a claim that remembers its position escapes
 * it. One embedded PostgreSQL (autovacuum at its defaults), a fresh database a round. A queue of
 * DEPTH one-step jobs is kept full while one connection claims, completes and replaces them at a
 * fixed rate, for M minutes as usual (steady) and then M minutes with another connection holding a
 * `REPEATABLE READ` snapshot (held), so vacuum can remove no dead entry from the claim index and
 * no scan can mark one dead. Claims take turns between four claims on the same queue:
 *
 * - `store`: the store's own claim (`PostgresStore.claim`), which starts the default priority's
 *   walk at the first step its previous claim got (decision 335);
 * - `store-front`: the same claim walking from the front of the index every time, as it did
 *   before (a fresh store for each claim, which remembers no position), the reference;
 * - `walk`: the same walk of the claim index reduced to its core (the default priority's range,
 *   oldest first, `FOR UPDATE SKIP LOCKED`, then the update), to show the core is what costs;
 * - `position`: `walk` with a lower bound on `scheduled_at`, the first step the previous claim of
 *   this claimant got; it walks from the start again when it got fewer than it asked for, and
 *   once every `RESET_MS` (default 1000) so a step left behind the position (a late commit, a
 *   claim rolled back, a lease reclaimed) waits at most that long.
 *
 * It prints, per statement, the claim's p50 and p99 in each phase (medians over rounds) and the
 * held/steady ratios, and the claim index's size and the dead tuples at each phase's end.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/held-snapshot.ts 3 300 2000 3
 *
 * (minutes a phase, steps a second, queue depth, rounds). The machine is shared: the ratios of one
 * run are the figures to read.
 */
import pg from 'pg';
import { Client } from '@cyclone/client';
import { migrate, PostgresStore } from '@cyclone/store-postgres';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { databaseUrl, quoteIdent, scalar } from './shared/db.js';

const minutes = Number(process.argv[2] ?? 3);
const rate = Number(process.argv[3] ?? 300);
const depth = Number(process.argv[4] ?? 2_000);
const rounds = Number(process.argv[5] ?? 3);
const resetMs = Number(process.env.RESET_MS ?? 1_000);
const kind = 'held.noop';
const batch = 10;
const variants = ['store', 'store-front', 'walk', 'position'] as const;
type Variant = (typeof variants)[number];
const phases = ['steady', 'held'] as const;
type Phase = (typeof phases)[number];

interface Claimed {
  readonly id: string;
  readonly token: string;
  /** `scheduled_at` as the server prints it (microseconds kept). */
  readonly at: string;
}

/**
 * The core of the claim: the default priority's range of the claim index, oldest first, from
 * `$3` on (`-infinity`: from the start), each row locked, then the update by primary key. The
 * store's statement does this per priority and per kind, and more around it.
 */
const coreClaim = `
WITH picked AS (
  SELECT id FROM cyclone_steps
  WHERE state = 'available' AND kind = $1 AND priority = 0 AND scheduled_at <= now()
    AND scheduled_at >= $3::timestamptz
  ORDER BY priority DESC NULLS LAST, scheduled_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
)
UPDATE cyclone_steps s
SET state = 'running', claim_token = gen_random_uuid(), claimed_by = 'bench',
    lease_expires_at = now() + interval '60 seconds', started_at = clock_timestamp()
WHERE s.id = ANY(ARRAY(SELECT id FROM picked))
RETURNING s.id, s.claim_token AS token, s.scheduled_at::text AS at`;

/** A claimant's remembered position (`position` only). */
interface Position {
  at: string | null;
  lastReset: number;
}

async function claimWith(
  variant: Variant,
  pool: pg.Pool,
  stores: Record<'store' | 'store-front', PostgresStore>,
  position: Position,
): Promise<Claimed[]> {
  if (variant === 'store' || variant === 'store-front') {
    const steps = await stores[variant].claim({
      kinds: [kind],
      limit: batch,
      workerId: 'bench',
      leaseMs: 60_000,
    });
    return steps.map((s) => ({ id: s.id, token: s.claimToken, at: '' }));
  }
  let from = '-infinity';
  if (variant === 'position') {
    const now = performance.now();
    if (position.at !== null && now - position.lastReset < resetMs) from = position.at;
    else position.lastReset = now;
  }
  const { rows } = await pool.query<Claimed>({
    name: 'held-core-claim',
    text: coreClaim,
    values: [kind, batch, from],
  });
  if (variant === 'position') {
    rows.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    position.at = rows.length < batch ? null : rows[0]!.at;
  }
  return rows;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
const median = (xs: number[]) => quantile(xs, 0.5);

interface PhaseFigures {
  p50: number;
  p99: number;
  lastMinuteP50: number;
  claims: number;
}

interface RoundFigures {
  claims: Record<Variant, Record<Phase, PhaseFigures>>;
  table: Record<Phase, { indexKiB: number; dead: number; autovacuums: number; perSecond: number }>;
}

async function tableFigures(
  pool: pg.Pool,
  perSecond: number,
): Promise<RoundFigures['table'][Phase]> {
  return {
    perSecond,
    indexKiB:
      (await scalar(pool, `SELECT pg_relation_size('cyclone_steps_claim_idx') AS n`)) / 1024,
    dead: await scalar(
      pool,
      `SELECT n_dead_tup AS n FROM pg_stat_user_tables WHERE relname = 'cyclone_steps'`,
    ),
    autovacuums: await scalar(
      pool,
      `SELECT autovacuum_count AS n FROM pg_stat_user_tables WHERE relname = 'cyclone_steps'`,
    ),
  };
}

async function runRound(serverUrl: string, admin: pg.Pool, round: number): Promise<RoundFigures> {
  const name = `held_snapshot_${round}`;
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
  await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
  const url = databaseUrl(serverUrl, name);
  await migrate({ connectionString: url });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  const store = new PostgresStore({ pool });
  const client = new Client({ pool });
  const holder = new pg.Client({ connectionString: url });
  holder.on('error', () => undefined);
  try {
    // Small batches: each enqueue's steps share one `scheduled_at`, as a worker's replacements do.
    for (let i = 0; i < depth; i += batch) {
      await client.enqueueMany(
        kind,
        Array.from({ length: batch }, () => null),
      );
    }
    await pool.query('VACUUM ANALYZE cyclone_steps');
    await holder.connect();

    const samples = Object.fromEntries(
      variants.map((v) => [v, { steady: [], held: [] }]),
    ) as unknown as Record<Variant, Record<Phase, { at: number; ms: number }[]>>;
    const positions: Position = { at: null, lastReset: 0 };
    const stores = { store, 'store-front': new PostgresStore({ pool }) };
    const table = {} as RoundFigures['table'];
    for (const phase of phases) {
      if (phase === 'held') {
        await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        await holder.query('SELECT count(*) FROM cyclone_runs');
      }
      const start = performance.now();
      const end = start + minutes * 60_000;
      let done = 0;
      let turn = 0;
      let nextReport = start + 60_000;
      while (performance.now() < end) {
        const variant = variants[turn++ % variants.length]!;
        const a = performance.now();
        const claimed = await claimWith(variant, pool, stores, positions);
        samples[variant][phase].push({ at: a, ms: performance.now() - a });
        // A store remembers no position before its first claim.
        if (variant === 'store-front') stores['store-front'] = new PostgresStore({ pool });
        if (claimed.length === 0) throw new Error(`${name}: the queue ran dry (${variant})`);
        const accepted = await store.complete(
          claimed.map((s) => ({ stepId: s.id, claimToken: s.token, outputJson: 'null' })),
        );
        if (accepted.size !== claimed.length) {
          throw new Error(`${name}: ${claimed.length - accepted.size} completions fenced`);
        }
        await client.enqueueMany(
          kind,
          claimed.map(() => null),
        );
        done += claimed.length;
        const due = start + (done / rate) * 1000;
        const now = performance.now();
        if (due > now) await sleep(due - now);
        if (now >= nextReport) {
          nextReport += 60_000;
          const minute = variants
            .map((v) => {
              const recent = samples[v][phase].filter((s) => s.at >= now - 60_000);
              return `${v} ${median(recent.map((s) => s.ms)).toFixed(1)} ms`;
            })
            .join(', ');
          console.log(
            `  round ${round + 1} ${phase} minute ${Math.round((now - start) / 60_000)}: ${(done / ((now - start) / 1000)).toFixed(0)} steps/s; claim p50 ${minute}`,
          );
        }
      }
      table[phase] = await tableFigures(pool, done / ((performance.now() - start) / 1000));
      if (phase === 'held') await holder.query('COMMIT');
    }
    const claims = {} as RoundFigures['claims'];
    for (const v of variants) {
      claims[v] = {} as Record<Phase, PhaseFigures>;
      for (const phase of phases) {
        const xs = samples[v][phase];
        const last = xs.at(-1)?.at ?? 0;
        claims[v][phase] = {
          p50: median(xs.map((s) => s.ms)),
          p99: quantile(
            xs.map((s) => s.ms),
            0.99,
          ),
          lastMinuteP50: median(xs.filter((s) => s.at >= last - 60_000).map((s) => s.ms)),
          claims: xs.length,
        };
      }
    }
    return { claims, table };
  } finally {
    await holder.end().catch(() => undefined);
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  }
}

const server = await startEmbeddedPostgres({ settings: { autovacuum: 'on' } });
const admin = new pg.Pool({ connectionString: server.url, max: 1 });
admin.on('error', () => undefined);
try {
  console.log(
    `held snapshot: ${minutes} min a phase, ${rate} steps/s, queue depth ${depth}, ${rounds} rounds, claims of ${batch}, position reset every ${resetMs} ms`,
  );
  const results: RoundFigures[] = [];
  for (let round = 0; round < rounds; round++) {
    const [load] = (await import('node:os')).loadavg();
    console.log(`round ${round + 1}: load average ${load!.toFixed(1)}`);
    results.push(await runRound(server.url, admin, round));
  }
  const rows: Record<string, Record<string, string>> = {};
  const of = (v: Variant, phase: Phase, f: keyof PhaseFigures) =>
    median(results.map((r) => r.claims[v][phase][f]));
  // Ratios are taken within each round (the machine's load moves whole rounds), then their median.
  const ratio = (v: Variant, f: 'p50' | 'p99') =>
    results.map((r) => r.claims[v].held[f] / r.claims[v].steady[f]);
  for (const v of variants) {
    rows[v] = {
      'steady p50': of(v, 'steady', 'p50').toFixed(2),
      'held p50': of(v, 'held', 'p50').toFixed(2),
      'held last-minute p50': of(v, 'held', 'lastMinuteP50').toFixed(2),
      'p50 held/steady': `${median(ratio(v, 'p50')).toFixed(1)}x`,
      'last minute/steady': `${median(results.map((r) => r.claims[v].held.lastMinuteP50 / r.claims[v].steady.p50)).toFixed(1)}x`,
      'steady p99': of(v, 'steady', 'p99').toFixed(2),
      'held p99': of(v, 'held', 'p99').toFixed(2),
      'p99 held/steady': `${median(ratio(v, 'p99')).toFixed(1)}x`,
      'rounds (p50 held/steady)': ratio(v, 'p50')
        .map((x) => x.toFixed(1))
        .join(' '),
    };
  }
  console.log(
    '\nclaim statement, ms (medians over rounds; ratios within each round, then their median)',
  );
  console.table(rows);
  console.table(
    Object.fromEntries(
      phases.map((phase) => [
        `end of ${phase}`,
        {
          'steps/s': median(results.map((r) => r.table[phase].perSecond)).toFixed(0),
          'claim index KiB': median(results.map((r) => r.table[phase].indexKiB)).toFixed(0),
          'dead tuples': median(results.map((r) => r.table[phase].dead)).toFixed(0),
          autovacuums: median(results.map((r) => r.table[phase].autovacuums)).toFixed(0),
        },
      ]),
    ),
  );
} finally {
  await admin.end();
  await server.stop();
}
