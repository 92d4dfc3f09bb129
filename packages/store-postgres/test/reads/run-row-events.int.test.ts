import { describe, expect, it } from 'vitest';
import { claimOne, useStore } from '../fixture.js';
import { failure } from '../operator/helpers.js';

const fx = useStore();

const storedTypes = async (runId: string) =>
  (
    await fx.query<{ type: string }>(
      'SELECT type FROM cyclone_events WHERE run_id = $1 ORDER BY id',
      [runId],
    )
  ).map((e) => e.type);

// Decisions 130 and 134: a run's submission and completion are told by its row, a first
// attempt's claim and success by its step's row; none is stored, and the events API lists them
// with the stored ones.
describe('the events the run row tells', () => {
  it('lists run_submitted first and run_completed last, from the rows, with nothing stored for a first attempt that succeeds', async () => {
    const { runId, stepId } = await fx.job('row.events');
    const claimed = await claimOne(fx, 'row.events');
    await fx.store.complete([{ stepId, claimToken: claimed.claimToken, outputJson: 'null' }]);

    expect(await storedTypes(runId)).toEqual([]);
    const events = await fx.store.listEvents(runId);
    expect(events.map((e) => [e.type, e.from, e.to, e.trigger])).toEqual([
      ['run_submitted', null, 'running', 'submit'],
      ['step_started', 'available', 'running', 'claim'],
      ['step_completed', 'running', 'completed', 'complete'],
      ['run_completed', 'running', 'completed', 'complete'],
    ]);
    const run = await fx.run(runId);
    expect(events[0]).toMatchObject({ id: 0, runId, stepId: null, node: null, at: run.created_at });
    expect(events[3]).toMatchObject({ id: Number.MAX_SAFE_INTEGER, runId, stepId: null });
    // Ids and times both read forward.
    for (let i = 1; i < events.length; i++) {
      expect(events[i]!.id).toBeGreaterThan(events[i - 1]!.id);
      expect(events[i]!.at.getTime()).toBeGreaterThanOrEqual(events[i - 1]!.at.getTime());
    }
    expect(events[3]!.at.getTime()).toBeGreaterThanOrEqual(run.ended_at!.getTime());
  });

  it('pages through the derived events with the after cursor and the limit like stored ones', async () => {
    const { runId, stepId } = await fx.job('row.paging');
    const claimed = await claimOne(fx, 'row.paging');
    await fx.store.complete([{ stepId, claimToken: claimed.claimToken, outputJson: 'null' }]);
    const all = await fx.store.listEvents(runId);
    expect(all).toHaveLength(4);

    const pages: string[][] = [];
    let after: number | undefined;
    for (;;) {
      const page = await fx.store.listEvents(runId, after, 1);
      if (page.length === 0) break;
      pages.push(page.map((e) => e.type));
      after = page.at(-1)!.id;
    }
    expect(pages).toEqual([
      ['run_submitted'],
      ['step_started'],
      ['step_completed'],
      ['run_completed'],
    ]);
    expect(await fx.store.listEvents(runId, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('lists no run_completed while the run is open, nor for a run that failed', async () => {
    const { runId } = await fx.job('row.open');
    expect((await fx.store.listEvents(runId)).map((e) => e.type)).toEqual(['run_submitted']);
    await claimOne(fx, 'row.open');
    expect((await fx.store.listEvents(runId)).map((e) => e.type)).toEqual([
      'run_submitted',
      'step_started',
    ]);

    const failed = await fx.job('row.failed', { maxAttempts: 1 });
    const step = await claimOne(fx, 'row.failed');
    await fx.store.fail(failure(step.id, step.claimToken));
    const types = (await fx.store.listEvents(failed.runId)).map((e) => e.type);
    expect(types[0]).toBe('run_submitted');
    expect(types).toContain('run_failed');
    expect(types).not.toContain('run_completed');
  });
});
