import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { SqlRunner } from '../../src/db/sql-runner.js';
import { StatementCompiler } from '../../src/db/statement.js';
import { tablesIn } from '../../src/db/tables.js';
import { claim } from '../../src/execution/claim.js';
import { claimChangeParams } from '../../src/tables/steps/claim-parts.js';
import { claimLimitedSteps } from '../../src/tables/steps/claim-limited-steps.js';
import { claimSteps } from '../../src/tables/steps/claim-steps.js';
import { claimOne, useStore } from '../fixture.js';
import { failure } from '../operator/helpers.js';

const fx = useStore();

describe('claim', () => {
  it('moves an available step to running with a token and a lease, and records step_started by claim', async () => {
    const { runId, stepId } = await fx.job('claim.job');
    const claimed = await claimOne(fx, 'claim.job', 30_000, 'w-1');
    expect(claimed).toMatchObject({
      id: stepId,
      runId,
      attempts: 0,
      workflow: 'claim.job',
      standalone: true,
    });
    const step = await fx.step(stepId);
    expect(step).toMatchObject({
      state: 'running',
      claimed_by: 'w-1',
      claim_token: claimed.claimToken,
    });
    expect(step.lease_expires_at!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    // The lease comes back as epoch milliseconds: the same instant as the row's, to the ms.
    expect(claimed.leaseExpiresAt.getTime()).toBe(step.lease_expires_at!.getTime());
    expect((await fx.events(runId)).at(-1)).toEqual([
      'step_started',
      'available',
      'running',
      'claim',
    ]);
  });

  it("takes the claim's start at its update, not at its transaction's start", async () => {
    // A claim sees what committed before its statement ran, not before its transaction began: a
    // start taken at the transaction's start could come before the event (a retry's, a snooze's)
    // of a change it sees, and the step's history would run backwards.
    const { stepId } = await fx.job('claim.start-time');
    const client = await fx.pool.connect();
    let began: Date;
    try {
      await client.query('BEGIN');
      began = (await client.query<{ now: Date }>('SELECT now()')).rows[0]!.now;
      await client.query('SELECT pg_sleep(0.05)');
      const exec = new SqlRunner(
        client,
        new StatementCompiler(tablesIn(undefined, fx.tableLayout)),
      );
      const [claimed] = await claim(exec, {
        kinds: ['claim.start-time'],
        limit: 1,
        workerId: 'w',
        leaseMs: 30_000,
      });
      await client.query('COMMIT');
      expect(claimed?.id).toBe(stepId);
    } finally {
      client.release();
    }
    const step = await fx.step(stepId);
    expect(step.started_at!.getTime() - began.getTime()).toBeGreaterThanOrEqual(50);
  });

  it('commits without waiting for its flush, in its own transaction only, and not under a rate limit', async () => {
    // Decision 299: a lost claim costs a repeat run, so its commit does not wait for the disk; the
    // setting is local to the claim's transaction, so the connection's next one (a completion)
    // commits durably. A claim under a cap alone does the same (decision 385); one under a rate
    // limit, which counts the starts it records, commits durably.
    await fx.job('claim.commit-mode');
    await fx.store.setConcurrencyLimit({
      kind: 'claim.commit-mode-limited',
      max: 5,
      perKey: false,
    });
    await fx.job('claim.commit-mode-limited');
    await fx.job('claim.commit-mode-limited');
    const client = await fx.pool.connect();
    const mode = async () =>
      (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!
        .synchronous_commit;
    try {
      const exec = new SqlRunner(
        client,
        new StatementCompiler(tablesIn(undefined, fx.tableLayout)),
      );
      // The session commits durably, whatever the server's default (the test servers of the
      // version matrix run with synchronous_commit off).
      await client.query('SET synchronous_commit = on');
      const durable = await mode();
      expect(durable).toBe('on');
      const request = {
        ...claimChangeParams('w'),
        from: [null],
        slackMs: 0,
        limit: 5,
        leaseMs: 30_000,
      };

      await client.query('BEGIN');
      const [nothing] = await claimSteps(exec, {
        ...request,
        kinds: ['claim.commit-mode-limited'],
      });
      // A claim of nothing: the limited kind is left to its own claim.
      expect(nothing).toMatchObject({ id: null, limited_kinds: ['claim.commit-mode-limited'] });
      expect(await mode()).toBe('off');
      await client.query('ROLLBACK');
      expect(await mode()).toBe(durable);

      await client.query('BEGIN');
      const [claimed] = await claimSteps(exec, { ...request, kinds: ['claim.commit-mode'] });
      expect(claimed?.id).toEqual(expect.any(String));
      expect(await mode()).toBe('off');
      await client.query('COMMIT');
      expect(await mode()).toBe(durable);

      await client.query('BEGIN');
      const [limitedStep] = await claimLimitedSteps(exec, {
        ...request,
        kind: 'claim.commit-mode-limited',
        scan: 5,
      });
      expect(limitedStep).toBeDefined();
      expect(await mode()).toBe('off');
      await client.query('COMMIT');
      expect(await mode()).toBe(durable);

      await fx.store.setRateLimit({
        kind: 'claim.commit-mode-limited',
        limit: 100,
        periodMs: 60_000,
        period: '1m',
        perKey: false,
      });
      await client.query('BEGIN');
      const [rated] = await claimLimitedSteps(exec, {
        ...request,
        kind: 'claim.commit-mode-limited',
        scan: 5,
      });
      expect(rated).toBeDefined();
      expect(await mode()).toBe(durable);
      await client.query('COMMIT');
    } finally {
      // Closed, not returned: a failed assertion may leave its transaction open.
      client.release(true);
    }
  });

  it('claims nothing of a kind it was not asked for, and nothing twice', async () => {
    await fx.job('claim.once');
    await claimOne(fx, 'claim.once');
    expect(
      await fx.store.claim({ kinds: ['claim.once'], limit: 5, workerId: 'w', leaseMs: 1000 }),
    ).toEqual([]);
    expect(
      await fx.store.claim({ kinds: ['claim.other'], limit: 5, workerId: 'w', leaseMs: 1000 }),
    ).toEqual([]);
  });
});

describe('complete', () => {
  it('completes the step and its run in one statement, recording both events with their triggers', async () => {
    const { runId, stepId } = await fx.job('complete.job');
    const claimed = await claimOne(fx, 'complete.job');
    const accepted = await fx.store.complete([
      { stepId, claimToken: claimed.claimToken, outputJson: '{"ok":true}' },
    ]);
    expect([...accepted]).toEqual([stepId]);
    expect(await fx.step(stepId)).toMatchObject({
      state: 'completed',
      attempts: 1,
      output: { ok: true },
    });
    expect(await fx.run(runId)).toMatchObject({ state: 'completed', open_steps: 0 });
    expect((await fx.events(runId)).slice(-2)).toEqual([
      ['step_completed', 'running', 'completed', 'complete'],
      ['run_completed', 'running', 'completed', 'complete'],
    ]);
  });

  it('promotes a task whose last dependency completed, recording step_ready by promote', async () => {
    const def = workflow('complete-promote')
      .task('a', 'cp.a')
      .task('b', 'cp.b', { dependsOn: ['a'] })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const a = await claimOne(fx, 'cp.a');
    expect(a.standalone).toBe(false);
    await fx.store.complete([{ stepId: a.id, claimToken: a.claimToken, outputJson: '1' }]);
    const b = run.steps.find((s) => s.node === 'b')!;
    expect(await fx.step(b.id)).toMatchObject({ state: 'available', deps_remaining: 0 });
    expect(await fx.run(run.id)).toMatchObject({ state: 'running', open_steps: 1 });
    expect((await fx.events(run.id)).at(-1)).toEqual([
      'step_ready',
      'pending',
      'available',
      'promote',
    ]);
    const claimedB = await claimOne(fx, 'cp.b');
    expect(claimedB.deps).toEqual({ a: 1 });
  });

  it("tells a promotion's step_ready by the row, and stores it when a retry reopens the step", async () => {
    // Decision 300: no event row for a promotion; the history reads it from the step's row. A
    // reopen (the one move back to pending) stores it under its id first, so a second promotion
    // leaves both in the history, in order.
    const def = workflow('complete-ready-told')
      .task('a', 'crt.a')
      .task('b', 'crt.b', { dependsOn: ['a'] })
      .task('x', 'crt.x')
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const b = run.steps.find((s) => s.node === 'b')!.id;
    const a = await claimOne(fx, 'crt.a');
    await fx.store.complete([{ stepId: a.id, claimToken: a.claimToken, outputJson: '1' }]);

    const history = await fx.store.listEvents(run.id);
    const ready = history.filter((e) => e.type === 'step_ready');
    expect(ready).toEqual([
      expect.objectContaining({
        runId: run.id,
        stepId: b,
        node: 'b',
        from: 'pending',
        to: 'available',
        trigger: 'promote',
        errorKind: null,
        detail: null,
      }),
    ]);
    const completedA = history.find((e) => e.type === 'step_completed' && e.stepId === a.id)!;
    expect(ready[0]!.id).toBeGreaterThan(completedA.id);
    expect(ready[0]!.at.getTime()).toBeGreaterThanOrEqual(completedA.at.getTime());
    const stored = () =>
      fx.query<{ id: string; type: string }>(
        'SELECT id, type FROM cyclone_events WHERE step_id = $1 ORDER BY id',
        [b],
      );
    expect(await stored()).toEqual([]);
    expect(await fx.step(b)).toMatchObject({ ready_event_id: String(ready[0]!.id) });

    // x fails for good: fail-fast cancels b, and a retry of x reopens it (and promotes it again,
    // a completed a being its only dependency).
    const x = await claimOne(fx, 'crt.x');
    await fx.store.fail(failure(x.id, x.claimToken));
    expect((await fx.step(b)).state).toBe('cancelled');
    await fx.store.retryRun(run.id, { node: 'x' });
    expect((await fx.step(b)).state).toBe('available');

    const after = (await fx.store.listEvents(run.id)).filter((e) => e.stepId === b);
    expect(after.map((e) => [e.type, e.from, e.to, e.trigger])).toEqual([
      ['step_ready', 'pending', 'available', 'promote'],
      ['step_cancelled_fail_fast', 'available', 'cancelled', 'fail_fast'],
      ['step_reopened', 'cancelled', 'pending', 'operator_retry_reopen'],
      ['step_ready', 'pending', 'available', 'promote'],
    ]);
    // The first promotion kept its id and time, now as a stored event.
    expect(after[0]).toEqual(ready[0]);
    expect((await stored())[0]).toEqual({ id: String(ready[0]!.id), type: 'step_ready' });
  });

  it('fences out a completion whose claim token no longer matches, writing nothing', async () => {
    const { runId, stepId } = await fx.job('complete.fenced');
    await claimOne(fx, 'complete.fenced');
    const accepted = await fx.store.complete([
      { stepId, claimToken: '00000000-0000-4000-8000-000000000000', outputJson: '1' },
    ]);
    expect(accepted.size).toBe(0);
    expect(await fx.step(stepId)).toMatchObject({ state: 'running', attempts: 0, output: null });
    expect((await fx.run(runId)).state).toBe('running');
  });

  it('completes a batch in one statement: each output stored as given, a fenced step left alone', async () => {
    const jobs = await Promise.all([1, 2, 3].map(() => fx.job('complete.batch')));
    const claimed = await fx.store.claim({
      kinds: ['complete.batch'],
      limit: 3,
      workerId: 'w',
      leaseMs: 30_000,
    });
    expect(claimed).toHaveLength(3);
    // One claim statement, three claims: a token each, none shared.
    expect(new Set(claimed.map((step) => step.claimToken)).size).toBe(3);
    // Outputs whose text holds what delimits the batch's values: commas, brackets, braces,
    // quotes, backslashes, and text beyond ASCII.
    const outputs = [{ a: 'x,}]"{[\\', n: null }, ['}', ',', '"', 'é ✓']];
    const [fenced, ...held] = claimed;
    const accepted = await fx.store.complete([
      { stepId: fenced!.id, claimToken: '00000000-0000-4000-8000-000000000000', outputJson: '0' },
      ...held.map((step, i) => ({
        stepId: step.id,
        claimToken: step.claimToken,
        outputJson: JSON.stringify(outputs[i]),
      })),
    ]);
    expect(accepted).toEqual(new Set(held.map((step) => step.id)));
    expect(await fx.step(fenced!.id)).toMatchObject({ state: 'running', output: null });
    for (const [i, step] of held.entries()) {
      expect(await fx.step(step.id)).toMatchObject({ state: 'completed', output: outputs[i] });
    }
    const ended = await Promise.all(jobs.map(({ runId }) => fx.run(runId)));
    expect(ended.map((run) => run.state).sort()).toEqual(['completed', 'completed', 'running']);
  });

  it('rejects an id or a token that is not a UUID before anything is written', async () => {
    const { stepId } = await fx.job('complete.bad-id');
    const claimed = await claimOne(fx, 'complete.bad-id');
    await expect(
      fx.store.complete([
        { stepId, claimToken: `${claimed.claimToken},${claimed.claimToken}`, outputJson: '1' },
      ]),
    ).rejects.toThrow(/completion 0: claimToken is not a UUID/);
    await expect(
      fx.store.complete([{ stepId: 'x}', claimToken: claimed.claimToken, outputJson: '1' }]),
    ).rejects.toThrow(/completion 0: stepId is not a UUID/);
    expect(await fx.step(stepId)).toMatchObject({ state: 'running', attempts: 0 });
  });
});

describe('heartbeat', () => {
  it('extends the lease of a held step and reports a step whose claim moved on as lost', async () => {
    const { stepId } = await fx.job('beat.job');
    const claimed = await claimOne(fx, 'beat.job', 1_000);
    const before = (await fx.step(stepId)).lease_expires_at!;
    const held = await fx.store.heartbeat(
      [
        { stepId, claimToken: claimed.claimToken },
        { stepId, claimToken: '00000000-0000-4000-8000-000000000000' },
      ],
      600_000,
    );
    expect([...held]).toEqual([stepId]);
    expect((await fx.step(stepId)).lease_expires_at!.getTime()).toBeGreaterThan(before.getTime());
  });
});
