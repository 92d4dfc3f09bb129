import { describe, expect, it } from 'vitest';
import { OnDepFailure, permanent, snooze, workflow } from '@cyclone/core';
import { eventually, gate } from '../engine.js';
import {
  eventRows,
  leaseExpires,
  runRow,
  stepReaches,
  stepRows,
  type EventRow,
  useTransitionEngine,
} from './helpers.js';

const engine = useTransitionEngine();

/**
 * Checks that the events of a run tell its whole story: for the run and for each step, every
 * event starts where the previous one ended (from the inserted state on), and the last one ends in
 * the state the row is in now. An event missing, doubled or out of order breaks a chain.
 */
async function expectUnbrokenChains(runId: string): Promise<EventRow[]> {
  const events = await eventRows(engine, runId);
  const run = await runRow(engine, runId);
  const runEvents = events.filter((e) => e.step_id === null);
  expect(runEvents[0]).toMatchObject({
    type: 'run_submitted',
    from_state: null,
    to_state: 'running',
  });
  let runState = 'running';
  for (const event of runEvents.slice(1)) {
    expect(event.from_state, `run event ${event.type}`).toBe(runState);
    runState = event.to_state!;
  }
  expect(runState).toBe(run.state);

  for (const step of Object.values(await stepRows(engine, runId))) {
    let state = step.depends_on.length > 0 ? 'pending' : 'available';
    for (const event of events.filter((e) => e.step_id === step.id)) {
      expect(event.node).toBe(step.node);
      expect(event.from_state, `${step.node}: ${event.type}`).toBe(state);
      state = event.to_state!;
    }
    expect(state, `${step.node} ends where its events end`).toBe(step.state);
  }
  // Ids only go forward, and so do times along each chain (a step's, the run's). Across steps that
  // run at once only the ids are ordered: an event's time is its transaction's start, and of two
  // transactions of different steps the one that started first may take the later id.
  for (let i = 1; i < events.length; i++) {
    expect(Number(events[i]!.id)).toBeGreaterThan(Number(events[i - 1]!.id));
  }
  const lastAt = new Map<string | null, number>();
  for (const event of events) {
    const at = event.at.getTime();
    expect(at, `${event.type} of ${event.node ?? 'the run'}`).toBeGreaterThanOrEqual(
      lastAt.get(event.step_id) ?? at,
    );
    lastAt.set(event.step_id, at);
  }
  return events;
}

describe('events', () => {
  it('records every transition of a run that retries, snoozes, promotes and completes, in order', async () => {
    const mixed = workflow('events-mixed')
      .task('flaky', 'ev.flaky', { backoff: { initial: '10ms', jitter: 0 } })
      .task('sleepy', 'ev.sleepy')
      .task('join', 'ev.join', { dependsOn: ['flaky', 'sleepy'] })
      .build();
    let snoozed = false;
    await engine.startWorker({
      handlers: {
        'ev.flaky': (ctx) => {
          if (ctx.attempt === 1) throw new Error('first try fails');
          return 'f';
        },
        'ev.sleepy': () => {
          if (!snoozed) {
            snoozed = true;
            throw snooze('10ms');
          }
          return 's';
        },
        'ev.join': (ctx) => ctx.deps,
      },
      workflows: [mixed],
    });
    const { runId } = await engine.client.submit(mixed, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');

    const events = await expectUnbrokenChains(runId);
    const byNode = (node: string) =>
      events.filter((e) => e.node === node).map((e) => [e.type, e.error_kind]);
    expect(byNode('flaky')).toEqual([
      ['step_started', null],
      ['step_retry_scheduled', 'retryable'],
      ['step_started', null],
      ['step_completed', null],
    ]);
    expect(byNode('sleepy')).toEqual([
      ['step_started', null],
      ['step_snoozed', 'snooze'],
      ['step_started', null],
      ['step_completed', null],
    ]);
    expect(byNode('join')).toEqual([
      ['step_ready', null],
      ['step_started', null],
      ['step_completed', null],
    ]);
    const started = events.filter((e) => e.type === 'step_started').map((e) => e.detail?.attempt);
    // flaky: 1, 2; sleepy: 1, 1 (a snooze charges nothing); join: 1, in some interleaving.
    expect(started.sort()).toEqual([1, 1, 1, 1, 2]);
    expect(events.filter((e) => e.step_id === null).map((e) => e.type)).toEqual([
      'run_submitted',
      'run_completed',
    ]);

    // The client reports the same history.
    const reported = await engine.client.events(runId);
    expect(reported.map((e) => [e.id, e.type, e.node, e.from, e.to, e.errorKind])).toEqual(
      events.map((e) => [Number(e.id), e.type, e.node, e.from_state, e.to_state, e.error_kind]),
    );
    // And pages from a known event on.
    const middle = reported[3]!.id;
    const later = await engine.client.events(runId, { after: middle });
    expect(later.map((e) => e.id)).toEqual(reported.slice(4).map((e) => e.id));
  });

  it('records discards, branch cancellation, fail-fast cancellation and the run failure', async () => {
    const failing = workflow('events-failing')
      .task('x', 'ev.x')
      .task('y', 'ev.y', { dependsOn: ['x'], onDepFailure: OnDepFailure.CancelBranch })
      .task('z', 'ev.z', { dependsOn: ['y'] })
      .task('w', 'ev.w')
      .build();
    const xRelease = gate();
    const worker = await engine.startWorker({
      handlers: {
        'ev.x': async () => {
          await xRelease.promise;
          throw permanent(new Error('x is broken'));
        },
        'ev.y': () => 'y',
        'ev.z': () => 'z',
        'ev.w': (ctx) =>
          new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(new Error('stopped'))),
          ),
      },
      workflows: [failing],
      heartbeatInterval: '50ms',
    });
    const { runId } = await engine.client.submit(failing, null);
    await stepReaches(engine, runId, 'w', 'running');
    xRelease.open();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');

    const events = await expectUnbrokenChains(runId);
    const trail = events.map((e) => [e.type, e.node, e.from_state, e.to_state, e.error_kind]);
    expect(trail).toEqual(
      expect.arrayContaining([
        ['step_discarded', 'x', 'running', 'discarded', 'permanent'],
        ['step_cancelled_fail_fast', 'y', 'pending', 'cancelled', null],
        ['step_cancelled_fail_fast', 'z', 'pending', 'cancelled', null],
        ['step_cancelled_fail_fast', 'w', 'running', 'cancelled', null],
        ['run_failed', null, 'running', 'failed', 'permanent'],
      ]),
    );
    expect(trail.at(-1)![0]).toBe('run_failed');
    // The cancelled handler's failure, once it has stopped, writes nothing.
    await eventually(() => worker.activeSteps === 0, 'the cancelled handler to stop');
    expect(await eventRows(engine, runId)).toHaveLength(events.length);
    expect((await stepRows(engine, runId)).w).toMatchObject({
      state: 'cancelled',
      error: null,
      attempts: 0,
    });
  });

  it('records a reclaim and the completion that follows it', async () => {
    const { runId } = await engine.client.enqueue('ev.reclaimed', null);
    const [claim] = await engine.store.claim({
      kinds: ['ev.reclaimed'],
      limit: 1,
      workerId: 'gone-worker',
      leaseMs: 50,
    });
    await leaseExpires(engine, claim!.id);
    await engine.store.reclaimExpired();
    await engine.startWorker({ handlers: { 'ev.reclaimed': () => 'finally' } });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');

    const events = await expectUnbrokenChains(runId);
    expect(events.map((e) => [e.type, e.to_state])).toEqual([
      ['run_submitted', 'running'],
      ['step_started', 'running'],
      ['step_reclaimed', 'available'],
      ['step_started', 'running'],
      ['step_completed', 'completed'],
      ['run_completed', 'completed'],
    ]);
    expect(events[2]!.detail).toEqual({ reclaims: 1, worker: 'gone-worker' });
  });
});
