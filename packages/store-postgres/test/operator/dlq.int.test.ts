import { describe, expect, it } from 'vitest';
import { ValidationError } from '@cyclone/core';
import { useStore } from '../fixture.js';
import { failedRun, statesOf } from './helpers.js';

const fx = useStore();

describe('listExhausted and redrive', () => {
  it('pages the discarded steps by reason and workflow, newest first, and redrives them', async () => {
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await failedRun(fx, `dlq${i % 2}`));
    // One of them a deadline, for the reason filter.
    await fx.query(`UPDATE cyclone_steps SET error_kind = 'deadline' WHERE id = $1`, [
      runs[4]!.stepA,
    ]);

    const first = await fx.store.listExhausted({ reason: 'permanent', limit: 2 });
    expect(first.steps).toHaveLength(2);
    expect(first.nextCursor).toBeDefined();
    const second = await fx.store.listExhausted({
      reason: 'permanent',
      limit: 2,
      cursor: first.nextCursor!,
    });
    expect(second.steps).toHaveLength(2);
    expect(second.nextCursor).toBeUndefined();
    const seen = [...first.steps, ...second.steps];
    expect(new Set(seen.map((s) => s.stepId)).size).toBe(4);
    expect(seen.every((s) => s.reason === 'permanent' && s.node === 'a')).toBe(true);
    expect(seen.map((s) => s.endedAt.getTime())).toEqual(
      [...seen.map((s) => s.endedAt.getTime())].sort((x, y) => y - x),
    );
    expect(first.steps[0]).toMatchObject({
      attempts: 1,
      error: 'boom',
      workflow: expect.stringMatching(/^dlq/),
    });

    const deadline = await fx.store.listExhausted({ reason: 'deadline' });
    expect(deadline.steps.map((s) => s.runId)).toEqual([runs[4]!.runId]);
    const byWorkflow = await fx.store.listExhausted({ workflow: 'dlq1-wf' });
    expect(byWorkflow.steps).toHaveLength(2);

    const result = await fx.store.redrive({ reason: 'permanent', workflow: 'dlq0-wf' });
    expect(result.retried).toBe(2);
    expect(new Set(result.runs)).toEqual(new Set([runs[0]!.runId, runs[2]!.runId]));
    expect(await statesOf(fx, runs[0]!.runId)).toMatchObject({ a: 'available' });
    expect((await fx.run(runs[0]!.runId)).state).toBe('running');
    expect(await statesOf(fx, runs[4]!.runId)).toMatchObject({ a: 'discarded' });
    expect((await fx.store.redrive({ reason: 'permanent', workflow: 'dlq0-wf' })).retried).toBe(0);
    // `before` leaves later discards alone.
    expect((await fx.store.redrive({ before: new Date(0) })).retried).toBe(0);
  });

  it('refuses a malformed cursor with a ValidationError naming it', async () => {
    for (const cursor of ['nope', Buffer.from('["dlq",1,2]').toString('base64url')]) {
      const error = await fx.store.listExhausted({ cursor }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ issues: [{ path: 'cursor' }] });
    }
  });
});
