import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SqlRunner } from '../../src/db/sql-runner.js';
import { StatementCompiler } from '../../src/db/statement.js';
import { tablesIn } from '../../src/db/tables.js';
import { Channels } from '../../src/db/channels.js';
import { insertNewJobs } from '../../src/tables/runs/insert-jobs.js';
import { newJobs } from '../../src/tables/runs/new-jobs.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import type { NewJobOptions } from '../../src/contract/new-run.js';
import { useStore } from '../fixture.js';

const fx = useStore();

/** Every column of a job's run and step but those that differ between any two jobs. */
async function jobRows(runId: string) {
  const [run] = await fx.query(
    `SELECT workflow, definition_hash, input, idempotency_key, state, open_steps, max_reclaims,
            trace_context, parent_run_id, parent_step_id,
            round(extract(epoch FROM deadline_at - created_at)) AS deadline_s
     FROM cyclone_runs WHERE id = $1`,
    [runId],
  );
  const [step] = await fx.query(
    `SELECT node, node_type, kind, state, depends_on, deps_remaining, on_dep_failure,
            item_index, parent_step_id, attempts, max_attempts, reclaims, timeout_ms, backoff,
            wait_signals, wait_n, max_wait_ms, wait_deadline_at, wait_for_ms, max_parallel,
            concurrency_key, priority, cache_ttl_ms, cache_key, claim_token, started_at,
            round(extract(epoch FROM scheduled_at - created_at)) AS delay_s
     FROM cyclone_steps WHERE run_id = $1`,
    [runId],
  );
  return { run, step };
}

const optionSets: [string, NewJobOptions][] = [
  ['no options', {}],
  [
    'every option',
    {
      maxAttempts: 7,
      timeoutMs: 1500,
      backoff: { initialMs: 250, maxMs: 5_000, factor: 3, jitter: 0 },
      delayMs: 60_000,
      deadlineMs: 3_600_000,
      maxReclaims: 3,
      traceContext: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      concurrencyKey: 'tenant-1',
      priority: -4,
    },
  ],
];

describe('enqueue (the lean job insert)', () => {
  it.each(optionSets)(
    'writes the rows the general submit writes for a job (%s)',
    async (_, options) => {
      const general = runOfJob('lean.same', '{"a":[1,"x"]}', {
        ...options,
        idempotencyKey: `general-${_}`,
      });
      await fx.store.submit([general]);
      const jobs = newJobs('lean.same', ['{"a":[1,"x"]}'], {
        ...options,
        idempotencyKey: `lean-${_}`,
      });
      const [submitted] = await fx.store.enqueue(jobs);
      expect(submitted).toEqual({ runId: jobs.runIds[0], created: true });
      const lean = await jobRows(jobs.runIds[0]!);
      const expected = await jobRows(general.id);
      expect(lean.step).toEqual(expected.step);
      expect({ ...lean.run, idempotency_key: null }).toEqual({
        ...expected.run,
        idempotency_key: null,
      });
      expect(lean.run!.idempotency_key).toBe(`lean-${_}`);
      const [step] = await fx.query<{ id: string }>(
        'SELECT id FROM cyclone_steps WHERE run_id = $1',
        [jobs.runIds[0]],
      );
      expect(step!.id).toBe(jobs.runIds[0]);
    },
  );

  it('inserts many jobs in order, each with its own arguments, all claimable', async () => {
    const args = Array.from({ length: 500 }, (_, i) =>
      JSON.stringify({ i, s: `"quoted" \\ ${i}` }),
    );
    const jobs = newJobs('lean.many', args, { suffixKeys: true });
    const submitted = await fx.store.enqueue(jobs);
    expect(submitted.map((s) => s.runId)).toEqual(jobs.runIds);
    expect(submitted.every((s) => s.created)).toBe(true);
    const rows = await fx.query<{ id: string; input: unknown; state: string }>(
      `SELECT r.id, r.input, s.state FROM cyclone_runs r JOIN cyclone_steps s ON s.run_id = r.id
       WHERE r.workflow = 'lean.many'`,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    jobs.runIds.forEach((id, i) => {
      expect(byId.get(id)).toEqual({ id, input: JSON.parse(args[i]!), state: 'available' });
    });
  });

  it('suffixes a batch key with each position and returns the runs that already hold a key', async () => {
    const first = newJobs('lean.keyed', ['1', '2'], {
      idempotencyKey: 'batch-9',
      suffixKeys: true,
    });
    await fx.store.enqueue(first);
    const second = newJobs('lean.keyed', ['1', '2', '3'], {
      idempotencyKey: 'batch-9',
      suffixKeys: true,
    });
    const submitted = await fx.store.enqueue(second);
    expect(submitted).toEqual([
      { runId: first.runIds[0], created: false },
      { runId: first.runIds[1], created: false },
      { runId: second.runIds[2], created: true },
    ]);
    const keys = await fx.query<{ idempotency_key: string }>(
      `SELECT idempotency_key FROM cyclone_runs WHERE workflow = 'lean.keyed' ORDER BY 1`,
    );
    expect(keys.map((k) => k.idempotency_key)).toEqual(['batch-9:0', 'batch-9:1', 'batch-9:2']);
    // The skipped jobs' steps were not inserted either: one step a run.
    const [{ n }] = (await fx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = 'lean.keyed'`,
    )) as [{ n: number }];
    expect(n).toBe(3);
  });

  it('wakes the kind on commit when its jobs are claimable now, not when they start later', async () => {
    const listener = new pg.Client({ connectionString: fx.db.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query(`LISTEN ${Channels.stepsAvailable}`);
    try {
      await fx.store.enqueue(newJobs('lean.later', ['null'], { delayMs: 3_600_000 }));
      await fx.store.enqueue(newJobs('lean.now', ['null', 'null']));
      const deadline = Date.now() + 10_000;
      while (!heard.includes('lean.now') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(heard).toContain('lean.now');
      expect(heard).not.toContain('lean.later');
    } finally {
      await listener.end();
    }
  });

  it('takes the general insert for arguments too large for one array, with the same rows', async () => {
    const exec = new SqlRunner(
      fx.pool,
      new StatementCompiler(tablesIn(undefined, fx.tableLayout)),
      fx.pool,
    );
    const jobs = newJobs('lean.large', ['{"big":"xxxxxxxxxx"}', '{"big":"yy"}'], {
      idempotencyKey: 'large',
      suffixKeys: true,
      priority: 2,
    });
    const submitted = await insertNewJobs(exec, jobs, 10);
    expect(submitted).toEqual(jobs.runIds.map((runId) => ({ runId, created: true })));
    const rows = await fx.query<{ id: string; idempotency_key: string; priority: string }>(
      `SELECT r.id, r.idempotency_key, s.priority::text FROM cyclone_runs r
       JOIN cyclone_steps s ON s.run_id = r.id WHERE r.workflow = 'lean.large' ORDER BY 2`,
    );
    expect(rows).toEqual([
      { id: jobs.runIds[0], idempotency_key: 'large:0', priority: '2' },
      { id: jobs.runIds[1], idempotency_key: 'large:1', priority: '2' },
    ]);
  });

  it("writes nothing when the caller's transaction rolls back", async () => {
    const client = await fx.pool.connect();
    const jobs = newJobs('lean.rolled', ['null', 'null']);
    try {
      await client.query('BEGIN');
      await fx.store.enqueue(jobs, client);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(
      await fx.query('SELECT id FROM cyclone_runs WHERE id = ANY($1::uuid[])', [jobs.runIds]),
    ).toEqual([]);
  });

  it('enqueues nothing for no jobs', async () => {
    expect(await fx.store.enqueue(newJobs('lean.none', []))).toEqual([]);
  });
});
