import { describe, expect, it } from 'vitest';
import { claimOne, leaseExpired, useStore } from '../fixture.js';
import { failure } from '../operator/helpers.js';

const fx = useStore();

const stored = async (runId: string) =>
  (
    await fx.query<{ type: string; detail: Record<string, unknown> | null }>(
      'SELECT type, detail FROM cyclone_events WHERE run_id = $1 ORDER BY id',
      [runId],
    )
  ).map((e) => [e.type, e.detail?.['attempt'] ?? null]);

const listed = async (runId: string) =>
  (await fx.store.listEvents(runId)).map((e) => [e.type, e.detail?.['attempt'] ?? null]);

/** The listed events' ids read forward, and each stored one is listed under its own id. */
async function expectOrderedIds(runId: string): Promise<void> {
  const events = await fx.store.listEvents(runId);
  for (let i = 1; i < events.length; i++) {
    expect(events[i]!.id).toBeGreaterThan(events[i - 1]!.id);
  }
}

// Decision 134: a claim, while it runs or once it succeeded, is told by its step's row; a claim
// that ends otherwise is stored by the statement that ends it, under the id and time it took.
describe('the events a step row tells', () => {
  it('tells a running claim from the row, with its attempt and worker', async () => {
    const { runId } = await fx.job('told.running');
    await claimOne(fx, 'told.running', 60_000, 'worker-a');
    expect(await stored(runId)).toEqual([]);
    const events = await fx.store.listEvents(runId);
    expect(events.map((e) => [e.type, e.from, e.to, e.trigger, e.detail])).toEqual([
      ['run_submitted', null, 'running', 'submit', null],
      ['step_started', 'available', 'running', 'claim', { attempt: 1, worker: 'worker-a' }],
    ]);
  });

  it('stores a retried claim with its retry, and tells the next claim and its success', async () => {
    const { runId, stepId } = await fx.job('told.retry', { maxAttempts: 3 });
    const first = await claimOne(fx, 'told.retry', 60_000, 'worker-a');
    await fx.store.fail(
      failure(stepId, first.claimToken, {
        errorKind: 'retryable',
        maxAttempts: 3,
        retryDelayMs: 0,
      }),
    );
    expect(await stored(runId)).toEqual([
      ['step_started', 1],
      ['step_retry_scheduled', 1],
    ]);
    const second = await claimOne(fx, 'told.retry', 60_000, 'worker-b');
    await fx.store.complete([{ stepId, claimToken: second.claimToken, outputJson: '1' }]);

    expect(await stored(runId)).toHaveLength(2);
    expect(await listed(runId)).toEqual([
      ['run_submitted', null],
      ['step_started', 1],
      ['step_retry_scheduled', 1],
      ['step_started', 2],
      ['step_completed', 2],
      ['run_completed', null],
    ]);
    const events = await fx.store.listEvents(runId);
    expect(events[1]!.detail).toEqual({ attempt: 1, worker: 'worker-a' });
    expect(events[3]!.detail).toEqual({ attempt: 2, worker: 'worker-b' });
    await expectOrderedIds(runId);
  });

  it('stores a snoozed claim, whose next claim keeps the attempt', async () => {
    const { runId, stepId } = await fx.job('told.snooze');
    const first = await claimOne(fx, 'told.snooze');
    expect(await fx.store.snooze(stepId, first.claimToken, 0)).toBe(true);
    await claimOne(fx, 'told.snooze');
    expect(await listed(runId)).toEqual([
      ['run_submitted', null],
      ['step_started', 1],
      ['step_snoozed', null],
      ['step_started', 1],
    ]);
    expect(await stored(runId)).toEqual([
      ['step_started', 1],
      ['step_snoozed', null],
    ]);
  });

  it('stores a discarded claim with its discard', async () => {
    const { runId, stepId } = await fx.job('told.discard');
    const claimed = await claimOne(fx, 'told.discard');
    await fx.store.fail(failure(stepId, claimed.claimToken));
    expect(await stored(runId)).toEqual([
      ['step_started', 1],
      ['step_discarded', 1],
      ['run_failed', null],
    ]);
    expect(await listed(runId)).toEqual([['run_submitted', null], ...(await stored(runId))]);
  });

  it('stores a reclaimed claim with its reclaim', async () => {
    const { runId, stepId } = await fx.job('told.reclaim');
    await claimOne(fx, 'told.reclaim', 1);
    await leaseExpired(fx, stepId);
    expect(await fx.store.reclaimExpired()).toBe(1);
    expect(await stored(runId)).toEqual([
      ['step_started', 1],
      ['step_reclaimed', null],
    ]);
  });

  it('stores a released claim, and a claim cancelled with its run', async () => {
    const released = await fx.job('told.release');
    const first = await claimOne(fx, 'told.release');
    expect(await fx.store.release(released.stepId, first.claimToken)).toBe(true);
    expect(await stored(released.runId)).toEqual([
      ['step_started', 1],
      ['step_released', null],
    ]);

    const cancelled = await fx.job('told.cancel');
    await claimOne(fx, 'told.cancel');
    await fx.store.cancelRun(cancelled.runId);
    expect((await stored(cancelled.runId)).map(([type]) => type)).toEqual([
      'step_started',
      'step_cancelled_cancel',
      'run_cancelled',
    ]);
  });
});
