/**
 * A step held back by a concurrency cap, under a real worker: operator controls act on it like on
 * any available step (pause, cancel, retry after a discard), and each freed place goes to the next
 * step in claim order, never to a paused or cancelled one. A run input without the key's field
 * gives its step no key (decision 251): such steps are one group under a per-key cap.
 */
import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import type { StepContext } from '../../src/index.js';
import { eventually, gate, useEngine } from '../engine.js';

const engine = useEngine();

/**
 * Handlers that record each start (the input's `tag`) and hold until the test releases that tag;
 * `fail` tags throw a permanent error instead.
 */
function gatedHandlers() {
  const started: string[] = [];
  const gates = new Map<string, ReturnType<typeof gate<void>>>();
  const gateOf = (tag: string) => {
    if (!gates.has(tag)) gates.set(tag, gate<void>());
    return gates.get(tag)!;
  };
  const handler = async (ctx: StepContext) => {
    const { tag, fail } = ctx.input as { tag: string; fail?: boolean };
    started.push(tag);
    await gateOf(tag).promise;
    if (fail && ctx.attempt === 1) throw new Error(`${tag} fails`);
    return tag;
  };
  return {
    started,
    handler,
    release: (tag: string) => gateOf(tag).open(),
    /** Waits until `tag` started. */
    startedNow: (tag: string) => eventually(() => started.includes(tag), `${tag} to start`),
  };
}

const running = async (kind: string) =>
  (
    await engine.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = $1 AND state = 'running'`,
      [kind],
    )
  )[0]!.n;

const stepState = async (runId: string) =>
  (
    await engine.query<{ state: string }>(`SELECT state FROM cyclone_steps WHERE run_id = $1`, [
      runId,
    ])
  )[0]!.state;

describe('a step held back by a concurrency cap', () => {
  it('is paused with its run; the freed place goes to the next step; resumed, it runs in turn', async () => {
    const kind = 'held.pause';
    await engine.client.setConcurrencyLimit({ kind, max: 1 });
    const h = gatedHandlers();
    await engine.startWorker({ concurrency: 5, handlers: { [kind]: h.handler } });
    const a = await engine.client.enqueue(kind, { tag: 'a' });
    await h.startedNow('a');
    const b = await engine.client.enqueue(kind, { tag: 'b' });
    const c = await engine.client.enqueue(kind, { tag: 'c' });
    expect((await engine.client.explain(b.runId, kind)).reason).toBe('concurrency_cap');

    await engine.client.run(b.runId).pause();
    expect(await stepState(b.runId)).toBe('paused');
    h.release('a');
    // The place goes to c, the next claimable step, not to the paused b.
    await h.startedNow('c');
    expect(h.started).toEqual(['a', 'c']);
    expect(await running(kind)).toBe(1);

    await engine.client.run(b.runId).resume();
    // Resumed, b is held back again while c runs.
    await eventually(async () => (await stepState(b.runId)) === 'available', 'b to be available');
    expect((await engine.client.explain(b.runId, kind)).reason).toBe('concurrency_cap');
    expect(h.started).toEqual(['a', 'c']);
    h.release('c');
    await h.startedNow('b');
    h.release('b');
    for (const run of [a, b, c]) {
      expect((await engine.client.wait(run.runId, { timeout: '10s' })).state).toBe('completed');
    }
    expect(h.started).toEqual(['a', 'c', 'b']);
  });

  it('is cancelled with its run and never runs; the freed place goes to the next step', async () => {
    const kind = 'held.cancel';
    await engine.client.setConcurrencyLimit({ kind, max: 1 });
    const h = gatedHandlers();
    await engine.startWorker({ concurrency: 5, handlers: { [kind]: h.handler } });
    const a = await engine.client.enqueue(kind, { tag: 'a' });
    await h.startedNow('a');
    const b = await engine.client.enqueue(kind, { tag: 'b' });
    const c = await engine.client.enqueue(kind, { tag: 'c' });

    await engine.client.cancel(b.runId);
    expect(await stepState(b.runId)).toBe('cancelled');
    expect((await engine.client.listConcurrencyLimits())[0]).toMatchObject({
      kind,
      running: 1,
      waiting: 1,
    });
    h.release('a');
    await h.startedNow('c');
    h.release('c');
    expect((await engine.client.wait(c.runId, { timeout: '10s' })).state).toBe('completed');
    expect((await engine.client.wait(a.runId, { timeout: '10s' })).state).toBe('completed');
    expect((await engine.client.getRun(b.runId)).state).toBe('cancelled');
    expect(h.started).toEqual(['a', 'c']);
  });

  it('frees its place when a step is discarded, and a retried step waits for a place again', async () => {
    const kind = 'held.retry';
    await engine.client.setConcurrencyLimit({ kind, max: 1 });
    const h = gatedHandlers();
    await engine.startWorker({ concurrency: 5, handlers: { [kind]: h.handler } });
    const a = await engine.client.enqueue(kind, { tag: 'a', fail: true }, { maxAttempts: 1 });
    await h.startedNow('a');
    const b = await engine.client.enqueue(kind, { tag: 'b' });
    h.release('a');
    // a is discarded (its only attempt failed): its place goes to b.
    expect((await engine.client.wait(a.runId, { timeout: '10s' })).state).toBe('failed');
    await h.startedNow('b');

    // Retried while b holds the place: a is claimable again but held back by the cap.
    await engine.client.retry(a.runId, kind);
    await eventually(async () => (await stepState(a.runId)) === 'available', 'a to be available');
    expect((await engine.client.explain(a.runId, kind)).reason).toBe('concurrency_cap');
    expect(await running(kind)).toBe(1);
    expect(h.started).toEqual(['a', 'b']);
    h.release('b');
    await eventually(() => h.started.length === 3, 'a to start again');
    expect(h.started).toEqual(['a', 'b', 'a']);
    expect((await engine.client.wait(a.runId, { timeout: '10s' })).state).toBe('completed');
    expect((await engine.client.wait(b.runId, { timeout: '10s' })).state).toBe('completed');
  });

  it('gives a freed place to the held step of the highest priority, then the oldest', async () => {
    const kind = 'held.priority';
    await engine.client.setConcurrencyLimit({ kind, max: 1 });
    const h = gatedHandlers();
    await engine.startWorker({ concurrency: 5, handlers: { [kind]: h.handler } });
    const first = await engine.client.enqueue(kind, { tag: 'first' });
    await h.startedNow('first');
    const runs = [first];
    for (const [tag, priority] of [
      ['low', -1],
      ['old', 0],
      ['high', 7],
      ['new', 0],
    ] as const) {
      runs.push(await engine.client.enqueue(kind, { tag }, { priority }));
    }
    for (const tag of ['first', 'high', 'old', 'new', 'low']) {
      await h.startedNow(tag);
      expect(await running(kind)).toBe(1);
      h.release(tag);
    }
    for (const run of runs) {
      expect((await engine.client.wait(run.runId, { timeout: '10s' })).state).toBe('completed');
    }
    expect(h.started).toEqual(['first', 'high', 'old', 'new', 'low']);
    await expectEventsFollowTable(engine.pool);
  });
});

describe('a run input without the key field', () => {
  it('is accepted; its step has no key and joins the keyless group under a per-key cap', async () => {
    const kind = 'held.nokey';
    await engine.client.setConcurrencyLimit({ kind, max: 1, perKey: true });
    const charge = workflow('keyed-charge')
      .task('charge', kind, { concurrencyKey: 'customer.id' })
      .build();
    const h = gatedHandlers();
    await engine.startWorker({
      concurrency: 5,
      workflows: [charge],
      handlers: { [kind]: h.handler },
    });
    const keyless1 = await engine.client.submit(charge, { tag: 'keyless-1' });
    const keyless2 = await engine.client.submit(charge, { tag: 'keyless-2', customer: null });
    const keyed = await engine.client.submit(charge, { tag: 'keyed', customer: { id: 7 } });
    const keys = await engine.query<{ run_id: string; concurrency_key: string | null }>(
      `SELECT run_id, concurrency_key FROM cyclone_steps WHERE run_id = ANY($1::uuid[])`,
      [[keyless1.runId, keyless2.runId, keyed.runId]],
    );
    expect(Object.fromEntries(keys.map((k) => [k.run_id, k.concurrency_key]))).toEqual({
      [keyless1.runId]: null,
      [keyless2.runId]: null,
      [keyed.runId]: '7',
    });

    // The keyed step runs beside one keyless step; the other keyless step waits for its group.
    await h.startedNow('keyed');
    await eventually(() => h.started.length === 2, 'a keyless step to start');
    const [firstKeyless, secondKeyless] = h.started.includes('keyless-1')
      ? [keyless1, keyless2]
      : [keyless2, keyless1];
    const held = await engine.client.explain(secondKeyless.runId, 'charge');
    expect(held.reason).toBe('concurrency_cap');
    expect(held.message).toContain('without a concurrency key');
    expect(h.started).toHaveLength(2);
    expect(await running(kind)).toBe(2);

    h.release('keyed');
    h.release(h.started.find((t) => t !== 'keyed')!);
    await eventually(() => h.started.length === 3, 'the second keyless step to start');
    h.release(h.started[2]!);
    for (const run of [firstKeyless, secondKeyless, keyed]) {
      expect((await engine.client.wait(run.runId, { timeout: '10s' })).state).toBe('completed');
    }
  });
});
