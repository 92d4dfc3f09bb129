import { describe, expect, it } from 'vitest';
import { useStore } from '../fixture.js';

const fx = useStore();

describe('failUnservedSteps', () => {
  it('claims and discards a step of a kind no live worker handles, in legal moves, and fails its run', async () => {
    await fx.store.registerWorker('w-served', ['served.kind']);
    const typo = await fx.job('unserved.kind');
    const served = await fx.job('served.kind');
    const failed = await fx.store.failUnservedSteps({
      claimant: 'scheduler:test',
      livenessMs: 60_000,
      graceMs: 0,
    });
    expect(failed).toBe(1);
    const step = await fx.step(typo.stepId);
    expect(step).toMatchObject({
      state: 'discarded',
      error_kind: 'permanent',
      attempts: 1,
      claimed_by: 'scheduler:test',
    });
    expect(step.error).toContain('"unserved.kind"');
    expect((await fx.run(typo.runId)).state).toBe('failed');
    expect((await fx.events(typo.runId)).slice(1, 3)).toEqual([
      ['step_started', 'available', 'running', 'claim'],
      ['step_discarded', 'running', 'discarded', 'permanent_error'],
    ]);
    expect((await fx.step(served.stepId)).state).toBe('available');
    await fx.store.deregisterWorker('w-served');
  });
});

describe('leadership', () => {
  it('lets one holder lead until it resigns, then another', async () => {
    expect(await fx.store.attemptLeadership('lease-a', 'one', 60_000)).toBe(true);
    expect(await fx.store.attemptLeadership('lease-a', 'two', 60_000)).toBe(false);
    expect(await fx.store.attemptLeadership('lease-a', 'one', 60_000)).toBe(true);
    await fx.store.resignLeadership('lease-a', 'one');
    expect(await fx.store.attemptLeadership('lease-a', 'two', 60_000)).toBe(true);
    const rows = await fx.query<{ holder: string }>(
      'SELECT holder FROM cyclone_leaders WHERE name = $1',
      ['lease-a'],
    );
    expect(rows).toEqual([{ holder: 'two' }]);
  });
});

describe('the worker registry', () => {
  it('registers, refreshes and forgets a worker with its kinds', async () => {
    await fx.store.registerWorker('w-reg', ['a']);
    await fx.store.registerWorker('w-reg', ['a', 'b']);
    expect(await fx.query('SELECT kinds FROM cyclone_workers WHERE id = $1', ['w-reg'])).toEqual([
      { kinds: ['a', 'b'] },
    ]);
    await fx.store.deregisterWorker('w-reg');
    expect(await fx.query('SELECT 1 FROM cyclone_workers WHERE id = $1', ['w-reg'])).toHaveLength(
      0,
    );
  });
});
