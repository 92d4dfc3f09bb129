import { describe, expect, it } from 'vitest';
import { claimOne, leaseExpired, useStore } from '../fixture.js';

const fx = useStore();

describe('reclaimExpired', () => {
  it('takes back a step whose lease expired: available, reclaims + 1, no attempt charged', async () => {
    const { runId, stepId } = await fx.job('reclaim.job');
    await claimOne(fx, 'reclaim.job', 1, 'gone-worker');
    await leaseExpired(fx, stepId);
    expect(await fx.store.reclaimExpired()).toBe(1);
    expect(await fx.step(stepId)).toMatchObject({
      state: 'available',
      reclaims: 1,
      attempts: 0,
      lease_expires_at: null,
    });
    expect((await fx.run(runId)).reclaim_count).toBe(1);
    expect((await fx.events(runId)).at(-1)).toEqual([
      'step_reclaimed',
      'running',
      'available',
      'reclaim',
    ]);
  });

  it('takes it back to paused, by reclaim, when its run is paused', async () => {
    const { runId, stepId } = await fx.job('reclaim.paused');
    await claimOne(fx, 'reclaim.paused', 1);
    await fx.query(`UPDATE cyclone_runs SET state = 'paused', paused_at = now() WHERE id = $1`, [
      runId,
    ]);
    await leaseExpired(fx, stepId);
    expect(await fx.store.reclaimExpired()).toBe(1);
    expect(await fx.step(stepId)).toMatchObject({ state: 'paused', reclaims: 1 });
    expect((await fx.events(runId)).at(-1)).toEqual([
      'step_reclaimed',
      'running',
      'paused',
      'reclaim',
    ]);
  });

  it('discards with reclaim_limit once the step was reclaimed maxReclaims times, failing the run', async () => {
    const { runId, stepId } = await fx.job('reclaim.limit', { maxReclaims: 0 });
    await claimOne(fx, 'reclaim.limit', 1);
    await leaseExpired(fx, stepId);
    expect(await fx.store.reclaimExpired()).toBe(1);
    expect(await fx.step(stepId)).toMatchObject({
      state: 'discarded',
      error_kind: 'reclaim_limit',
      attempts: 0,
    });
    expect(await fx.run(runId)).toMatchObject({ state: 'failed', error_kind: 'reclaim_limit' });
    expect(await fx.events(runId)).toContainEqual([
      'step_discarded',
      'running',
      'discarded',
      'reclaim_limit',
    ]);
  });

  it('leaves a live lease alone', async () => {
    const { stepId } = await fx.job('reclaim.live');
    await claimOne(fx, 'reclaim.live', 600_000);
    expect(await fx.store.reclaimExpired()).toBe(0);
    expect((await fx.step(stepId)).state).toBe('running');
  });
});
