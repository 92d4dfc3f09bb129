/**
 * What the store's claim and completion cost a call in each of several databases, on one warm
 * connection: a fixed cost per statement shows at small claims, a cost per row at large ones.
 * Each round enqueues Q jobs in every database (taking turns, the order reversed every other
 * round), analyzes it, then drains them with claims of `limit` and their completions, one after
 * the other. The first ten calls of a connection are not timed: they include the five custom
 * plans PostgreSQL makes before it settles on a statement's generic plan, which a worker pays
 * once per connection. Printed: µs a call of each statement, medians of the rounds, and their
 * ratio to the first database's.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/statement-cost.ts \
 *     postgres://postgres@127.0.0.1:5432 5 2000 5 db_a db_b ...
 *
 * (server URL, claim limit, jobs a round, rounds, databases: each already migrated). Databases
 * of two layouts to compare are made by a layout helper (decision 425 used the one of commit
 * `e1f64f4`, `tools/bench/src/period-layout.ts` there). The jobs a round drains are enqueued
 * and finished in each database, so later rounds find more history than earlier ones.
 */
import pg from 'pg';
import { Client } from '@cyclone/client';
import { PostgresStore } from '@cyclone/store-postgres';
import { databaseUrl } from './shared/db.js';
import { median } from './shared/drain.js';

const [serverUrl, limitArg = '5', jobsArg = '2000', roundsArg = '5', ...databases] =
  process.argv.slice(2);
if (!serverUrl || databases.length === 0) {
  throw new Error('usage: statement-cost.ts <server url> <limit> <jobs> <rounds> <database>...');
}
const limit = Number(limitArg);
const jobs = Number(jobsArg);
const rounds = Number(roundsArg);
const kind = 'statement-cost.noop';
/** Calls of each statement a connection makes before timing: the custom plans and one more. */
const untimedCalls = 10;
if (jobs <= untimedCalls * limit) {
  throw new Error(`jobs (${jobs}) must exceed ${untimedCalls} claims of ${limit}`);
}

interface Costs {
  readonly claim: number[];
  readonly complete: number[];
}

/** Enqueues `jobs` jobs in `database` and drains them: µs a claim and a completion, timed ones. */
async function round(database: string): Promise<{ claim: number; complete: number }> {
  const pool = new pg.Pool({ connectionString: databaseUrl(serverUrl!, database), max: 1 });
  pool.on('error', () => undefined);
  try {
    const store = new PostgresStore({ pool });
    const client = new Client({ pool });
    for (let at = 0; at < jobs; at += 1_000) {
      await client.enqueueMany(kind, new Array<null>(Math.min(1_000, jobs - at)).fill(null));
    }
    await pool.query('ANALYZE');
    let claimMs = 0;
    let completeMs = 0;
    let calls = 0;
    for (let done = 0; done < jobs;) {
      const t0 = performance.now();
      const claimed = await store.claim({
        kinds: [kind],
        limit,
        workerId: 'bench',
        leaseMs: 60_000,
      });
      const t1 = performance.now();
      if (claimed.length === 0) throw new Error(`${database}: the queue ran dry at ${done}`);
      await store.complete(
        claimed.map((s) => ({ stepId: s.id, claimToken: s.claimToken, outputJson: 'null' })),
      );
      const t2 = performance.now();
      if (done >= untimedCalls * limit) {
        claimMs += t1 - t0;
        completeMs += t2 - t1;
        calls += 1;
      }
      done += claimed.length;
    }
    return { claim: (claimMs / calls) * 1000, complete: (completeMs / calls) * 1000 };
  } finally {
    await pool.end();
  }
}

const costs = new Map<string, Costs>(databases.map((d) => [d, { claim: [], complete: [] }]));
for (let r = 0; r < rounds; r += 1) {
  const order = r % 2 === 0 ? databases : [...databases].reverse();
  for (const database of order) {
    const { claim, complete } = await round(database);
    costs.get(database)!.claim.push(claim);
    costs.get(database)!.complete.push(complete);
  }
}

const first = costs.get(databases[0]!)!;
const base = median(first.claim) + median(first.complete);
console.log(`claim limit ${limit}, ${jobs} jobs a round, ${rounds} rounds; µs a call, medians`);
for (const [database, c] of costs) {
  const claim = median(c.claim);
  const complete = median(c.complete);
  console.log(
    `${database.padEnd(24)} claim ${claim.toFixed(0).padStart(6)}  complete ` +
      `${complete.toFixed(0).padStart(6)}  both ${((claim + complete) / base).toFixed(2)}x  ` +
      `(claim rounds ${c.claim.map((x) => x.toFixed(0)).join(' / ')})`,
  );
}
