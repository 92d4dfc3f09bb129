import { describe, expect, it } from 'vitest';
import { explainNode } from './explain-node.js';
import { EXPLAIN_REASONS } from './node-explanation.js';
import type { NodeFacts, StepFacts } from './node-facts.js';

const now = new Date('2026-12-01T12:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);

function step(over: Partial<StepFacts> = {}): StepFacts {
  return {
    id: 'step-1',
    node: 'charge',
    nodeType: 'task',
    kind: 'payments.charge',
    state: 'available',
    itemIndex: null,
    attempts: 0,
    maxAttempts: 3,
    reclaims: 0,
    error: null,
    errorKind: null,
    timedOut: false,
    scheduledAt: now,
    claimedBy: null,
    leaseExpiresAt: null,
    waitSignals: null,
    waitN: null,
    waitGathered: 0,
    waitDeadlineAt: null,
    childRunId: null,
    ...over,
  };
}

function facts(s: Partial<StepFacts> = {}, over: Partial<NodeFacts> = {}): NodeFacts {
  return {
    now,
    run: { id: 'run-1', state: 'running', pausedAt: null },
    step: step(s),
    upstream: [],
    fanOut: null,
    child: null,
    workers: { live: 1, serving: ['w1'] },
    ...over,
  };
}

describe('explainNode', () => {
  it('explains a claimable step with a live worker as ready', () => {
    const e = explainNode(facts());
    expect(e).toMatchObject({ node: 'charge', state: 'available', reason: 'ready' });
    expect(e.label).toBeUndefined();
    expect(e.message).toContain('w1');
  });

  it('labels an available step Late once 15 s past its time, and Crashed after a reclaim', () => {
    expect(explainNode(facts({ scheduledAt: later(-16_000) }))).toMatchObject({
      reason: 'ready',
      label: 'Late',
    });
    expect(explainNode(facts({ reclaims: 1 }))).toMatchObject({
      reason: 'ready',
      label: 'Crashed',
    });
  });

  it('explains a running step with its worker, lease and the Retrying label after attempt 1', () => {
    const lease = later(30_000);
    const first = explainNode(facts({ state: 'running', claimedBy: 'w7', leaseExpiresAt: lease }));
    expect(first).toMatchObject({ reason: 'running', worker: 'w7', until: lease });
    expect(first.label).toBeUndefined();
    const again = explainNode(
      facts({ state: 'running', attempts: 1, claimedBy: 'w7', leaseExpiresAt: lease }),
    );
    expect(again).toMatchObject({ label: 'Retrying' });
    expect(again.message).toContain('Attempt 2 of 3');
    const expired = explainNode(
      facts({ state: 'running', claimedBy: 'w7', leaseExpiresAt: later(-1000) }),
    );
    expect(expired.message).toContain('recovery sweep');
  });

  it('explains completed, discarded and cancelled steps as terminal', () => {
    expect(explainNode(facts({ state: 'completed' }))).toMatchObject({ reason: 'terminal' });
    expect(explainNode(facts({ state: 'completed', timedOut: true }))).toMatchObject({
      reason: 'terminal',
      label: 'TimedOut',
    });
    const discarded = explainNode(
      facts({
        state: 'discarded',
        errorKind: 'permanent',
        error: 'card declined\nstack',
        attempts: 1,
      }),
    );
    expect(discarded.reason).toBe('terminal');
    expect(discarded.message).toContain('permanent: card declined');
    expect(explainNode(facts({ state: 'cancelled' })).reason).toBe('terminal');
  });

  it('names the upstream nodes that have not completed', () => {
    const e = explainNode(
      facts(
        { state: 'pending' },
        {
          upstream: [
            { node: 'a', state: 'completed' },
            { node: 'b', state: 'running' },
            { node: 'c', state: 'pending' },
          ],
        },
      ),
    );
    expect(e).toMatchObject({ reason: 'dependencies', waitingOn: ['b', 'c'] });
    expect(e.message).toContain('b (running), c (pending)');
  });

  it('says a pending step whose dependencies completed is promoted at the next settlement', () => {
    const e = explainNode(
      facts({ state: 'pending' }, { upstream: [{ node: 'a', state: 'completed' }] }),
    );
    expect(e.reason).toBe('ready');
  });

  it('explains a signal wait with the names, the quorum and the max wait', () => {
    const deadline = later(3_600_000);
    const e = explainNode(
      facts({
        state: 'waiting_signal',
        nodeType: 'wait_n',
        waitSignals: ['vote'],
        waitN: 3,
        waitGathered: 1,
        waitDeadlineAt: deadline,
      }),
    );
    expect(e).toMatchObject({ reason: 'signal', waitingOn: ['vote'], until: deadline });
    expect(e.message).toContain('1 of 3 gathered');
  });

  it('explains a timer with its fire time', () => {
    const fires = later(600_000);
    expect(
      explainNode(facts({ state: 'waiting_timer', nodeType: 'wait_timer', scheduledAt: fires })),
    ).toMatchObject({ reason: 'timer', until: fires });
  });

  it('explains a child node by its child run, and one whose child has not started', () => {
    const e = explainNode(
      facts(
        { state: 'waiting_child', nodeType: 'child', childRunId: 'child-1' },
        { child: { id: 'child-1', state: 'running' } },
      ),
    );
    expect(e).toMatchObject({ reason: 'child', waitingOn: ['child-1'] });
    expect(e.message).toContain('child-1 (running)');
    expect(explainNode(facts({ state: 'waiting_child', nodeType: 'child' })).reason).toBe('child');
  });

  it('names the item tasks holding the places of a full maxParallel', () => {
    const e = explainNode(
      facts(
        { state: 'pending', nodeType: 'item', node: 'pack', itemIndex: 3 },
        {
          fanOut: {
            node: 'pack',
            maxParallel: 2,
            items: 5,
            holding: [0, 2],
            pending: 3,
            unfinished: [0, 2, 3, 4],
            unfinishedCount: 4,
          },
        },
      ),
    );
    expect(e).toMatchObject({
      node: 'pack[3]',
      reason: 'max_parallel',
      waitingOn: ['pack[0]', 'pack[2]'],
    });
  });

  it('explains a fan-out node by its unfinished item tasks', () => {
    const e = explainNode(
      facts(
        { state: 'pending', nodeType: 'fan_out', node: 'pack' },
        {
          upstream: [{ node: 'list', state: 'completed' }],
          fanOut: {
            node: 'pack',
            maxParallel: 2,
            items: 5,
            holding: [0, 2],
            pending: 2,
            unfinished: [0, 2, 3, 4],
            unfinishedCount: 4,
          },
        },
      ),
    );
    expect(e).toMatchObject({
      reason: 'dependencies',
      waitingOn: ['pack[0]', 'pack[2]', 'pack[3]', 'pack[4]'],
    });
    expect(e.message).toContain('4 of 5 not completed');
  });

  it('explains any step of a paused run but a running one as paused', () => {
    const run = { id: 'run-1', state: 'paused' as const, pausedAt: later(-5000) };
    expect(explainNode(facts({ state: 'paused' }, { run })).reason).toBe('paused');
    expect(
      explainNode(
        facts({ state: 'pending' }, { run, upstream: [{ node: 'a', state: 'completed' }] }),
      ).reason,
    ).toBe('paused');
    const waits = explainNode(facts({ state: 'paused', waitSignals: ['ok'] }, { run }));
    expect(waits.message).toContain('waiting_signal');
    expect(explainNode(facts({ state: 'running', claimedBy: 'w1' }, { run })).reason).toBe(
      'running',
    );
  });

  it('explains a retry backoff with AwaitingRetry and its end, after the failed attempt', () => {
    const end = later(20_000);
    const e = explainNode(
      facts({ attempts: 1, errorKind: 'retryable', error: 'timeout', scheduledAt: end }),
    );
    expect(e).toMatchObject({ reason: 'backoff', label: 'AwaitingRetry', until: end });
    expect(e.message).toContain('Attempt 1 of 3 failed (timeout)');
    expect(explainNode(facts({ errorKind: 'transient', scheduledAt: end })).reason).toBe('backoff');
  });

  it('explains a delayed or snoozed step as scheduled', () => {
    const end = later(60_000);
    expect(explainNode(facts({ scheduledAt: end }))).toMatchObject({
      reason: 'scheduled',
      until: end,
    });
    expect(explainNode(facts({ scheduledAt: end, errorKind: 'snooze' })).message).toContain(
      'snoozed',
    );
  });

  it('explains a step no live worker serves, with or without live workers', () => {
    expect(explainNode(facts({}, { workers: { live: 2, serving: [] } }))).toMatchObject({
      reason: 'no_worker',
    });
    expect(explainNode(facts({}, { workers: { live: 0, serving: [] } })).message).toContain(
      'No worker is live',
    );
  });

  it('covers every reason, the flow limits included', () => {
    expect(EXPLAIN_REASONS).toContain('concurrency_cap');
    expect(EXPLAIN_REASONS).toContain('rate_limit');
    expect(EXPLAIN_REASONS).toHaveLength(14);
  });
});

describe("explainNode for a step its kind's flow limits hold back", () => {
  const due = { state: 'available' as const, scheduledAt: new Date('2026-01-01T11:59:00Z') };
  const concurrency = (running: number, key: string | null = null, perKey = false) => ({
    limits: { concurrency: { max: 2, perKey, key, running }, rate: null },
  });

  it('answers concurrency_cap with the cap and how many hold it, labelled AwaitingResource', () => {
    const explained = explainNode(facts(due, concurrency(2)));
    expect(explained).toMatchObject({ reason: 'concurrency_cap', label: 'AwaitingResource' });
    expect(explained.message).toContain('(2) is full: 2 of its steps run now');
  });

  it('names the concurrency key under a per-key cap', () => {
    const explained = explainNode(facts(due, concurrency(3, 'tenant-7', true)));
    expect(explained.reason).toBe('concurrency_cap');
    expect(explained.message).toContain('"tenant-7"');
  });

  it('answers ready while the cap has room', () => {
    expect(explainNode(facts(due, concurrency(1))).reason).toBe('ready');
  });

  it('answers rate_limit with when the window has room', () => {
    const until = new Date('2026-01-01T12:00:30Z');
    const explained = explainNode(
      facts(due, {
        limits: {
          concurrency: null,
          rate: { limit: 5, period: '1m', perKey: false, key: null, starts: 5, until },
        },
      }),
    );
    expect(explained).toMatchObject({ reason: 'rate_limit', label: 'AwaitingResource', until });
    expect(explained.message).toContain('5 per 1m');
  });
});
