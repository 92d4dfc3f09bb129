import { WaitBucketCount, waitBucketOf } from '@cyclone/core';
import type { ClaimedStep, KindMinuteCounts } from '@cyclone/store-postgres';
import type { StepMetrics } from './step-metrics.js';

interface KindCounts {
  completed: number;
  failed: number;
  waitBuckets: number[];
  /** Whether anything was counted since the last take. */
  touched: boolean;
}

/**
 * What the worker counts for the operators' overview between two flushes, per kind: successes,
 * failures, and the queue wait of each claimed step in core's fixed log buckets. Counting is a map
 * lookup and an increment on the paths that already report metrics; {@link StatsFlusher} writes
 * the counts every few seconds in one statement, so the overview adds no statement per step.
 */
export class MinuteCounts implements StepMetrics {
  private readonly kinds = new Map<string, KindCounts>();

  claimed(_ms: number, steps: readonly ClaimedStep[]): void {
    for (const step of steps) {
      const counts = this.of(step.kind);
      counts.waitBuckets[waitBucketOf(step.queueWaitMs)]!++;
    }
  }

  completed(kind: string): void {
    this.of(kind).completed++;
  }

  failed(kind: string): void {
    this.of(kind).failed++;
  }

  handlerFinished(): void {}
  snoozed(): void {}
  dropped(): void {}

  /** Hands over what was counted since the last take (kinds with counts only) and starts afresh. */
  take(): KindMinuteCounts[] {
    const taken: KindMinuteCounts[] = [];
    for (const [kind, counts] of this.kinds) {
      if (!counts.touched) continue;
      taken.push({
        kind,
        completed: counts.completed,
        failed: counts.failed,
        waitBuckets: counts.waitBuckets,
      });
      this.kinds.set(kind, fresh());
    }
    return taken;
  }

  /** Puts back counts a flush could not write, to go with the next one. */
  restore(counts: readonly KindMinuteCounts[]): void {
    for (const c of counts) {
      const into = this.of(c.kind);
      into.completed += c.completed;
      into.failed += c.failed;
      for (let i = 0; i < WaitBucketCount; i++) into.waitBuckets[i]! += c.waitBuckets[i] ?? 0;
    }
  }

  private of(kind: string): KindCounts {
    let counts = this.kinds.get(kind);
    if (!counts) {
      counts = fresh();
      this.kinds.set(kind, counts);
    }
    counts.touched = true;
    return counts;
  }
}

function fresh(): KindCounts {
  return {
    completed: 0,
    failed: 0,
    waitBuckets: new Array<number>(WaitBucketCount).fill(0),
    touched: false,
  };
}

/**
 * Reports every call to both `a` and `b`: the overview's counts and the Prometheus metrics see the
 * same events.
 */
export function bothStepMetrics(a: StepMetrics, b: StepMetrics): StepMetrics {
  return {
    claimed: (ms, steps) => {
      a.claimed(ms, steps);
      b.claimed(ms, steps);
    },
    handlerFinished: (kind, ms) => {
      a.handlerFinished(kind, ms);
      b.handlerFinished(kind, ms);
    },
    completed: (kind) => {
      a.completed(kind);
      b.completed(kind);
    },
    failed: (kind, outcome) => {
      a.failed(kind, outcome);
      b.failed(kind, outcome);
    },
    snoozed: (kind) => {
      a.snoozed(kind);
      b.snoozed(kind);
    },
    dropped: (kind) => {
      a.dropped(kind);
      b.dropped(kind);
    },
  };
}
