import { beforeEach, describe, expect, it } from 'vitest';
import { gate } from '../engine.js';
import {
  eventRows,
  leaseExpires,
  stepReaches,
  stepRow,
  truncateRuns,
  untilAborted,
  useTransitionEngine,
} from '../transitions/helpers.js';

const engine = useTransitionEngine();

// The recovery sweep reads the whole database: each test starts from empty tables.
beforeEach(() => truncateRuns(engine));

describe('stop past its timeout with a handler that ignores ctx.signal', () => {
  it('does not release the step while its handler may still run: it is left to its lease, no longer renewed', async () => {
    const never = gate();
    let ignoringCalls = 0;
    const worker = await engine.startWorker({
      handlers: {
        'release.ignores': async () => {
          ignoringCalls++;
          await never.promise;
          return 'late';
        },
        'release.honours': (ctx) => untilAborted(ctx.signal),
      },
      leaseDuration: '1s',
      heartbeatInterval: '100ms',
    });
    const { runId: ignoring } = await engine.client.enqueue('release.ignores', null);
    const { runId: honouring } = await engine.client.enqueue('release.honours', null);
    const held = await stepReaches(engine, ignoring, 'release.ignores', 'running');
    await stepReaches(engine, honouring, 'release.honours', 'running');

    await worker.stop({ timeout: '50ms' });

    // The handler that stopped when aborted gave its step back.
    expect(await stepRow(engine, honouring, 'release.honours')).toMatchObject({
      state: 'available',
      attempts: 0,
    });
    // The one still running kept its claim: no other worker can claim the step.
    expect(await stepRow(engine, ignoring, 'release.ignores')).toMatchObject({
      state: 'running',
      claim_token: held.claim_token,
      claimed_by: worker.id,
      attempts: 0,
    });
    const types = (await eventRows(engine, ignoring)).map((e) => e.type);
    expect(types).not.toContain('step_released');

    // Its lease runs out since nothing renews it any more; then the sweep makes it available and
    // another worker runs it, as the same first attempt.
    await leaseExpires(engine, held.id);
    expect(await engine.store.reclaimExpired()).toBe(1);
    const attempts: number[] = [];
    await engine.startWorker({
      handlers: { 'release.ignores': (ctx) => void attempts.push(ctx.attempt) },
    });
    expect((await engine.client.wait(ignoring, { timeout: '10s' })).state).toBe('completed');
    expect(attempts).toEqual([1]);
    expect(ignoringCalls).toBe(1);
    expect(await stepRow(engine, ignoring, 'release.ignores')).toMatchObject({ reclaims: 1 });
    never.open();
  });
});
