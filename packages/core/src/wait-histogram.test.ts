import { describe, expect, it } from 'vitest';
import {
  addWaitBuckets,
  WaitBucketCount,
  waitBucketLowerMs,
  waitBucketOf,
  waitBucketUpperMs,
  waitPercentileMs,
} from './wait-histogram.js';

describe('the wait histogram', () => {
  it('puts every wait in the bucket whose bounds hold it', () => {
    for (const ms of [1, 1.3, 2, 3, 10, 999, 1000, 60_000, 3_600_000, 2 ** 30]) {
      const bucket = waitBucketOf(ms);
      expect(ms).toBeGreaterThanOrEqual(waitBucketLowerMs(bucket));
      expect(ms).toBeLessThan(waitBucketUpperMs(bucket));
    }
  });

  it('counts waits under a millisecond, negative ones (clock noise) included, in bucket 0', () => {
    expect(waitBucketOf(0)).toBe(0);
    expect(waitBucketOf(0.4)).toBe(0);
    expect(waitBucketOf(-5)).toBe(0);
    expect(waitBucketOf(Number.NaN)).toBe(0);
  });

  it('keeps waits beyond its range in the last bucket', () => {
    expect(waitBucketOf(2 ** 31)).toBe(WaitBucketCount - 1);
    expect(waitBucketOf(1e15)).toBe(WaitBucketCount - 1);
  });

  it('reads a percentile within a factor of √2 of the true value', () => {
    const buckets = new Array<number>(WaitBucketCount).fill(0);
    const waits = Array.from({ length: 1000 }, (_, i) => (i + 1) * 10); // 10 ms .. 10 s
    for (const ms of waits) buckets[waitBucketOf(ms)]!++;
    const p50 = waitPercentileMs(buckets, 0.5)!;
    const p95 = waitPercentileMs(buckets, 0.95)!;
    expect(p50 / 5000).toBeGreaterThan(1 / Math.SQRT2);
    expect(p50 / 5000).toBeLessThan(Math.SQRT2);
    expect(p95 / 9500).toBeGreaterThan(1 / Math.SQRT2);
    expect(p95 / 9500).toBeLessThan(Math.SQRT2);
  });

  it('has no percentile when nothing was counted', () => {
    expect(waitPercentileMs(new Array<number>(WaitBucketCount).fill(0), 0.5)).toBeUndefined();
  });

  it('merges histograms bucket by bucket', () => {
    const a = new Array<number>(WaitBucketCount).fill(1);
    const b = new Array<number>(WaitBucketCount).fill(2);
    addWaitBuckets(a, b);
    expect(a.every((n) => n === 3)).toBe(true);
  });
});
