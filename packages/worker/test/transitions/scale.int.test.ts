import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { eventually } from '../engine.js';
import { useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

const Jobs = 3_000;
const Runs = 100;

const chain = workflow('scale-chain')
  .task('one', 'scale.one')
  .task('two', 'scale.two', { dependsOn: ['one'] })
  .task('three', 'scale.three', { dependsOn: ['two'] })
  .build();

describe('scale', () => {
  it(`drains ${Jobs} jobs and ${Runs} three-step runs on three workers, executing every step exactly once`, async () => {
    const calls = new Map<string, number>();
    const byWorker = [0, 0, 0];
    const count = (worker: number) => (ctx: { stepId: string }) => {
      calls.set(ctx.stepId, (calls.get(ctx.stepId) ?? 0) + 1);
      byWorker[worker]!++;
    };
    const handlers = (worker: number) => {
      const record = count(worker);
      return {
        'scale.job': (ctx: { stepId: string; input: unknown }) => {
          record(ctx);
          return ctx.input;
        },
        'scale.one': (ctx: { stepId: string; input: unknown }) => {
          record(ctx);
          return (ctx.input as { i: number }).i;
        },
        'scale.two': (ctx: { stepId: string; deps: Readonly<Record<string, unknown>> }) => {
          record(ctx);
          return (ctx.deps.one as number) * 2;
        },
        'scale.three': (ctx: { stepId: string; deps: Readonly<Record<string, unknown>> }) => {
          record(ctx);
          return (ctx.deps.two as number) + 1;
        },
      };
    };
    // Each worker opens its own pool: three independent clients of the database.
    await Promise.all(
      [0, 1, 2].map((w) =>
        engine.startWorker({ handlers: handlers(w), workflows: [chain], concurrency: 10 }),
      ),
    );

    const [jobs, runs] = await Promise.all([
      engine.client.enqueueMany(
        'scale.job',
        Array.from({ length: Jobs }, (_, i) => ({ i })),
      ),
      engine.client.submitMany(
        chain,
        Array.from({ length: Runs }, (_, i) => ({ i })),
      ),
    ]);
    expect(jobs).toHaveLength(Jobs);
    expect(runs).toHaveLength(Runs);

    await eventually(
      async () => {
        const [row] = await engine.query<{ open: number }>(
          "SELECT count(*)::int AS open FROM cyclone_runs WHERE state <> 'completed'",
        );
        return row!.open === 0;
      },
      'every run to complete',
      // Correctness only: speed is the bench's business. The bound is generous for a loaded machine.
      90_000,
    );

    const totalSteps = Jobs + Runs * 3;
    expect(calls.size).toBe(totalSteps);
    const repeated = [...calls.entries()].filter(([, n]) => n !== 1);
    expect(repeated).toEqual([]);
    // Every worker took part.
    for (const n of byWorker) expect(n).toBeGreaterThan(0);

    const [steps] = await engine.query<{ total: number; completed: number; attempts: number }>(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE state = 'completed')::int AS completed,
              sum(attempts)::int AS attempts
       FROM cyclone_steps`,
    );
    expect(steps).toEqual({ total: totalSteps, completed: totalSteps, attempts: totalSteps });
    const [runRows] = await engine.query<{ total: number; completed: number; open: number }>(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE state = 'completed' AND ended_at IS NOT NULL)::int AS completed,
              sum(open_steps)::int AS open
       FROM cyclone_runs`,
    );
    expect(runRows).toEqual({ total: Jobs + Runs, completed: Jobs + Runs, open: 0 });
    const events = await engine.query<{ type: string; n: number }>(
      'SELECT type, count(*)::int AS n FROM cyclone_history GROUP BY type ORDER BY type',
    );
    expect(Object.fromEntries(events.map((e) => [e.type, e.n]))).toEqual({
      run_submitted: Jobs + Runs,
      step_started: totalSteps,
      step_completed: totalSteps,
      // Promotions: two of each chain's three steps.
      step_ready: Runs * 2,
      run_completed: Jobs + Runs,
    });
    // None of these is stored: a run's submission and completion are told by its row (decision
    // 130), each step's one claim and its success by the step's row (decision 134), and each
    // promotion by the promoted step's row (decision 300).
    const stored = await engine.query<{ type: string; n: number }>(
      'SELECT type, count(*)::int AS n FROM cyclone_events GROUP BY type ORDER BY type',
    );
    expect(stored).toEqual([]);

    // Every chain computed from its own input: three = i * 2 + 1.
    const outputs = await engine.query<{ input: { i: number }; output: number }>(
      `SELECT r.input, s.output FROM cyclone_runs r JOIN cyclone_steps s ON s.run_id = r.id
       WHERE r.workflow = 'scale-chain' AND s.node = 'three'`,
    );
    expect(outputs).toHaveLength(Runs);
    for (const { input, output } of outputs) expect(output).toBe(input.i * 2 + 1);
  }, 120_000);
});
