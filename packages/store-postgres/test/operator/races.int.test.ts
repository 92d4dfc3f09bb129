import { describe, expect, it } from 'vitest';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

const expire = (stepId: string) =>
  fx.query(`UPDATE cyclone_steps SET lease_expires_at = now() - interval '1 ms' WHERE id = $1`, [
    stepId,
  ]);

describe('races', () => {
  it('a reclaim racing a completion: a completed step stays completed (30 trials)', async () => {
    for (let i = 0; i < 30; i++) {
      const { runId, stepId } = await fx.job('race.rc');
      const claimed = await claimOne(fx, 'race.rc');
      await expire(stepId);
      const [accepted] = await Promise.all([
        fx.store.complete([{ stepId, claimToken: claimed.claimToken, outputJson: '1' }]),
        fx.store.reclaimExpired(),
      ]);
      const step = await fx.step(stepId);
      if (accepted.has(stepId)) {
        expect(step.state).toBe('completed');
        expect((await fx.run(runId)).state).toBe('completed');
        // A later sweep does not touch it either.
        await fx.store.reclaimExpired();
        expect((await fx.step(stepId)).state).toBe('completed');
      } else {
        expect(step).toMatchObject({ state: 'available', reclaims: 1 });
      }
      await fx.store.cancelRun(runId).catch(() => undefined);
    }
  });

  it('a cancel during a reclaim: the step ends cancelled and does not run again (30 trials)', async () => {
    for (let i = 0; i < 30; i++) {
      const { runId, stepId } = await fx.job('race.cr');
      await claimOne(fx, 'race.cr');
      await expire(stepId);
      await Promise.all([fx.store.cancelRun(runId), fx.store.reclaimExpired()]);
      expect((await fx.step(stepId)).state).toBe('cancelled');
      expect((await fx.run(runId)).state).toBe('cancelled');
      expect(
        await fx.store.claim({ kinds: ['race.cr'], limit: 5, workerId: 'w', leaseMs: 60_000 }),
      ).toEqual([]);
    }
  });

  it('a cancel racing a completion: exactly one wins (30 trials)', async () => {
    for (let i = 0; i < 30; i++) {
      const { runId, stepId } = await fx.job('race.cc');
      const claimed = await claimOne(fx, 'race.cc');
      const [accepted, cancel] = await Promise.all([
        fx.store.complete([{ stepId, claimToken: claimed.claimToken, outputJson: '1' }]),
        fx.store.cancelRun(runId).then(
          () => 'cancelled',
          (e: { code?: string }) => e.code,
        ),
      ]);
      const run = await fx.run(runId);
      if (accepted.has(stepId)) {
        expect(cancel).toBe('ALREADY_TERMINAL');
        expect(run.state).toBe('completed');
      } else {
        expect(cancel).toBe('cancelled');
        expect(run.state).toBe('cancelled');
        expect((await fx.step(stepId)).state).toBe('cancelled');
      }
    }
  });
});
