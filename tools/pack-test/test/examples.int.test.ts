/**
 * Every program in examples/ runs, with the command its README gives, against a database of its
 * own, and shuts down by itself: a program that leaves a pool or a timer open never exits, and
 * the test fails on its timeout. The examples import the built packages, as an application would.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@cyclone/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanEnv,
  createEmptyDatabase,
  type EmptyDatabase,
  inRepo,
  plain,
  query,
  repoRoot,
  run,
} from './support.js';

const journal = JSON.parse(readFileSync(inRepo('migrations/meta/_journal.json'), 'utf8')) as {
  entries: unknown[];
};

/** Runs `examples/<file>` to its end with `node --import tsx`, as the READMEs say. */
function example(file: string, env: NodeJS.ProcessEnv) {
  return run(process.execPath, ['--import', 'tsx', `examples/${file}`], {
    cwd: repoRoot,
    env: cleanEnv(env),
    timeoutMs: 120_000,
  });
}

/** A long-running example: its output so far, a wait for a line of it, and its exit. */
function startExample(file: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', `examples/${file}`], {
    cwd: repoRoot,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += plain(chunk.toString('utf8'));
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  void exited.then(() => clearTimeout(killer));
  return {
    get output() {
      return output;
    },
    exited,
    stop: (signal: NodeJS.Signals = 'SIGTERM') => child.kill(signal),
    /** Resolves once the output matches `pattern`; rejects if the program exits first. */
    waitFor(pattern: RegExp): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        check();
        void exited.then(({ code, signal }) => {
          if (!pattern.test(output)) {
            reject(
              new Error(
                `${file} exited (${code ?? signal}) before printing ${pattern}:\n${output}`,
              ),
            );
          }
        });
      });
    },
  };
}

describe('the examples', () => {
  let database: EmptyDatabase;
  let env: NodeJS.ProcessEnv;
  let migrated: string;

  beforeAll(async () => {
    database = await createEmptyDatabase();
    env = { CYCLONE_DATABASE_URL: database.url };
    // The first thing a new database needs, and the store README's first example.
    migrated = (await example('store-migrate.ts', env)).stdout;
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('store-migrate.ts applies every migration to a new database, then none', async () => {
    expect(migrated.trim()).toBe(`applied ${journal.entries.length} migration(s)`);
    // DATABASE_URL is accepted when CYCLONE_DATABASE_URL is not set.
    const again = await example('store-migrate.ts', { DATABASE_URL: database.url });
    expect(again.stdout.trim()).toBe('applied 0 migration(s)');
  });

  it('store-migrate.ts says which variable to set when none is', async () => {
    await expect(example('store-migrate.ts', {})).rejects.toThrow(/set CYCLONE_DATABASE_URL/);
  });

  it('order-workflow.ts (the root README) runs the order, its fan-out, wait and child run to their end', async () => {
    const { stdout } = await example('order-workflow.ts', env);
    // Outputs come back from jsonb, which orders keys by length: boxes, invoice, trackingId.
    expect(stdout).toMatch(
      /^\{ ship: \{ boxes: 2, invoice: 'o-42.pdf', trackingId: 'trk_ch_o-42' \} \}$/m,
    );
    const [run] = await query<{ state: string }>(
      database.url,
      "SELECT state FROM cyclone_runs WHERE workflow = 'order'",
    );
    expect(run?.state).toBe('completed');
    const nodes = await query<{ node: string; items: number; child: string | null }>(
      database.url,
      `SELECT s.node, count(i.id)::int AS items, c.state AS child
       FROM cyclone_steps s
       LEFT JOIN cyclone_steps i ON i.parent_step_id = s.id
       LEFT JOIN cyclone_runs c ON c.id = s.child_run_id
       WHERE s.node IN ('pack', 'invoice') AND s.parent_step_id IS NULL
       GROUP BY s.node, c.state ORDER BY s.node`,
    );
    expect(nodes).toEqual([
      { node: 'invoice', items: 0, child: 'completed' },
      { node: 'pack', items: 2, child: null },
    ]);
  });

  it('order-transaction.ts (docs/transactions.md) records the order, its email job and the step together', async () => {
    const { stdout } = await example('order-transaction.ts', env);
    expect(stdout).toMatch(/^\{ ship: \{ trackingId: 'trk_o-\d+' \} \}$/m);
    expect(stdout).toMatch(/^orders recorded for the run: 1$/m);
    const [counts] = await query<{ orders: number; emails: number }>(
      database.url,
      `SELECT (SELECT count(*)::int FROM app_orders) AS orders,
              (SELECT count(*)::int FROM cyclone_steps WHERE kind = 'email.confirm') AS emails`,
    );
    expect(counts).toEqual({ orders: 1, emails: 1 });
  });

  it('quickstart.ts (docs/quickstart.md) runs its signup workflow to the result', async () => {
    const { stdout } = await example('quickstart.ts', env);
    expect(stdout).toMatch(/^\{ welcome: \{ sent: true \} \}$/m);
    const runId = /^run (\S+)$/m.exec(stdout)?.[1];
    const runs = await query<{ id: string; state: string }>(
      database.url,
      "SELECT id, state FROM cyclone_runs WHERE workflow = 'signup'",
    );
    expect(runs).toEqual([{ id: runId, state: 'completed' }]);
  });

  it('typed-workflow.ts (docs/workflows.md) pays a refund, refuses an input at submit and an output at its attempt', async () => {
    const { stdout } = await example('typed-workflow.ts', env);
    expect(stdout).toMatch(/^paid pay_o-1_1250 restocked 2$/m);
    expect(stdout).toMatch(/^VALIDATION \[/m);
    expect(stdout).toMatch(/path: \[ 'orderId' \]/);
    expect(stdout).toMatch(/path: \[ 'amountCents' \]/);
    expect(stdout).toMatch(/^failed check permanent$/m);
    // The refused input wrote nothing: two runs, the paid one and the one whose check failed.
    const runs = await query<{ state: string }>(
      database.url,
      "SELECT state FROM cyclone_runs WHERE workflow = 'refund' ORDER BY state",
    );
    expect(runs.map((run) => run.state)).toEqual(['completed', 'failed']);
  });

  it('testing.ts (docs/testing.md) passes its own tests and drops its schema', async () => {
    const { stdout } = await example('testing.ts', env);
    expect(stdout).toMatch(/a small refund is checked, then paid/);
    expect(stdout).toMatch(/a large refund fails at the check and is never paid/);
    expect(stdout).toMatch(/^# fail 0$/m);
    const schemas = await query<{ n: number }>(
      database.url,
      "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname LIKE 'test_refund_%'",
    );
    expect(schemas[0]?.n).toBe(0);
  });

  it('store-direct.ts submits, claims and completes a job through the store', async () => {
    const { stdout } = await example('store-direct.ts', env);
    expect(stdout.trim()).toBe('completed');
  });

  it('client.ts, served by worker.ts, waits for its run; the worker stops on SIGTERM', async () => {
    const worker = startExample('worker.ts', env);
    try {
      // The example's own line, printed once its SIGTERM handler is installed (the
      // engine's "worker started" log comes earlier, inside start()).
      await worker.waitFor(/^worker started; stop it with Ctrl-C$/m);
      const { stdout } = await example('client.ts', env);
      expect(stdout).toMatch(
        /^completed \{ ship: \{ chargeId: 'ch_42', trackingId: 'trk_ch_42' \} \}$/m,
      );
      // The client does not wait for the email job it enqueues; the worker runs it.
      const [job] = await query<{ id: string }>(
        database.url,
        "SELECT id FROM cyclone_runs WHERE workflow = 'email.send' ORDER BY id DESC LIMIT 1",
      );
      const client = new Client({ connectionString: database.url });
      try {
        expect((await client.wait(job!.id, { timeout: '30s' })).state).toBe('completed');
      } finally {
        await client.close();
      }
    } finally {
      worker.stop('SIGTERM');
    }
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(worker.output).toMatch(/worker stopped/);
  });

  it('scheduler.ts takes the lead, and stops on SIGTERM', async () => {
    const scheduler = startExample('scheduler.ts', env);
    try {
      await scheduler.waitFor(/^scheduler started; stop it with Ctrl-C$/m);
      await scheduler.waitFor(/became leader/);
      const leaders = await query<{ n: number }>(
        database.url,
        'SELECT count(*)::int AS n FROM cyclone_leaders WHERE expires_at > now()',
      );
      expect(leaders[0]?.n).toBe(1);
    } finally {
      scheduler.stop('SIGTERM');
    }
    expect(await scheduler.exited).toEqual({ code: 0, signal: null });
  });

  it('scheduler-metrics.ts serves the scheduler metrics from its own registry, and stops on SIGTERM', async () => {
    const example_ = startExample('scheduler-metrics.ts', { ...env, PORT: '0' });
    try {
      await example_.waitFor(/^metrics at http:\/\/127\.0\.0\.1:\d+\/$/m);
      const url = /metrics at (\S+)/.exec(example_.output)![1]!;
      const deadline = Date.now() + 60_000;
      let text = '';
      while (!/^cyclone_scheduler_leader 1$/m.test(text)) {
        if (Date.now() > deadline) throw new Error(`never led; the last scrape:\n${text}`);
        text = await (await fetch(url)).text();
        if (!/^cyclone_scheduler_leader 1$/m.test(text)) await sleep(100);
      }
      expect(text).toMatch(/^cyclone_scheduler_scanner_passes_total\{/m);
    } finally {
      example_.stop('SIGTERM');
    }
    expect(await example_.exited).toEqual({ code: 0, signal: null });
  });

  it('cli-handlers.ts serves a run under `cyclone worker --handlers`, which stops on SIGTERM', async () => {
    const worker = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'packages/cli/bin/cyclone.js',
        'worker',
        '--handlers',
        'examples/cli-handlers.ts',
        '--scheduler',
      ],
      { cwd: repoRoot, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
    const client = new Client({ connectionString: database.url });
    try {
      const { order } = await import('../../../examples/cli-handlers.js');
      const { runId } = await client.submit(order, { orderId: 'o-7' });
      expect(await client.result(runId, { timeout: '60s' })).toEqual({
        charge: { chargeId: 'ch_o-7', amountCents: 4200 },
      });
      // The run can finish before the command prints its ready line (it does once the scheduler
      // has started too): wait for the line, up to a deadline.
      const ready = /worker ready .*kinds=orders\.load,payments\.charge/;
      for (const deadline = Date.now() + 30_000; !ready.test(output) && Date.now() < deadline;) {
        await sleep(50);
      }
      expect(output).toMatch(ready);
    } finally {
      await client.close();
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('metrics.ts serves the worker metrics, runs a job and prints what a scrape returns', async () => {
    const { stdout } = await example('metrics.ts', env);
    expect(stdout).toMatch(/^cyclone_steps_completed_total\{kind="email\.send"\} [1-9]\d*$/m);
    expect(stdout).toMatch(/^cyclone_queue_ready_steps\{kind="email\.send"\} \d+$/m);
    expect(stdout).toMatch(/^cyclone_dlq_steps\{reason="permanent"\} \d+$/m);
    expect(stdout).toMatch(/^cyclone_scheduler_leader [01]$/m);
  });

  it('flow-control.ts runs one charge per customer at a time under a per-key cap, and lists its limits', async () => {
    const { stdout } = await example('flow-control.ts', env);
    expect(stdout).toMatch(/^most charges of one customer at once: 1$/m);
    expect(stdout).toMatch(
      /kind: 'payments\.charge',\s+max: 1,\s+perKey: true,\s+running: 0,\s+waiting: 0/,
    );
    expect(stdout).toMatch(/kind: 'email\.receipt', limit: 100, period: '1m', perKey: false/);
    const limits = await query<{ n: number }>(
      env.CYCLONE_DATABASE_URL!,
      'SELECT count(*)::int AS n FROM cyclone_limits',
    );
    expect(limits[0]?.n).toBe(0);
  });

  it('core-workflow.ts builds a definition and prints its hash', async () => {
    const { stdout } = await example('core-workflow.ts', {});
    expect(stdout.trim()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('core-transitions.ts shows a refused and an allowed transition', async () => {
    const { stdout } = await example('core-transitions.ts', {});
    expect(stdout).toMatch(/accepted: false,\s+reason: 'terminal'/);
    expect(stdout).toMatch(/\[ 'available' \]/);
  });
});
