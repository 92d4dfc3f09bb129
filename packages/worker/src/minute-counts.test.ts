import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { WaitBucketCount, waitBucketOf } from '@cyclone/core';
import type { ClaimedStep, KindMinuteCounts } from '@cyclone/store-postgres';
import { MinuteCounts } from './minute-counts.js';
import { StatsFlusher } from './stats-flusher.js';

const claimed = (kind: string, queueWaitMs: number) => ({ kind, queueWaitMs }) as ClaimedStep;

describe('the per-minute counts', () => {
  it('counts successes, failures and queue waits per kind, and starts afresh at each take', () => {
    const counts = new MinuteCounts();
    counts.claimed(1, [claimed('a', 5), claimed('a', 5), claimed('b', 2_000)]);
    counts.completed('a');
    counts.completed('a');
    counts.failed('b');
    const taken = counts.take();
    const a = taken.find((c) => c.kind === 'a')!;
    const b = taken.find((c) => c.kind === 'b')!;
    expect(a).toMatchObject({ completed: 2, failed: 0 });
    expect(a.waitBuckets).toHaveLength(WaitBucketCount);
    expect(a.waitBuckets[waitBucketOf(5)]).toBe(2);
    expect(b).toMatchObject({ completed: 0, failed: 1 });
    expect(b.waitBuckets[waitBucketOf(2_000)]).toBe(1);
    expect(counts.take()).toEqual([]);
  });

  it('keeps what a failed flush could not write for the next one', async () => {
    const counts = new MinuteCounts();
    const written: KindMinuteCounts[][] = [];
    let refuse = true;
    const store = {
      addStatsMinutes: (c: readonly KindMinuteCounts[]) => {
        if (refuse) return Promise.reject(new Error('connection lost'));
        written.push([...c]);
        return Promise.resolve();
      },
    };
    const flusher = new StatsFlusher(store, counts, pino({ level: 'silent' }));
    counts.completed('a');
    await flusher.flush();
    expect(written).toEqual([]);
    refuse = false;
    counts.completed('a');
    await flusher.stop();
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject([{ kind: 'a', completed: 2, failed: 0 }]);
  });

  it('sends nothing when nothing was counted', async () => {
    let calls = 0;
    const store = { addStatsMinutes: () => Promise.resolve(void calls++) };
    await new StatsFlusher(store, new MinuteCounts(), pino({ level: 'silent' })).stop();
    expect(calls).toBe(0);
  });
});
