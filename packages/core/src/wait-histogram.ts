/**
 * A fixed log-scale histogram of queue waits (how long a step had been claimable when it started),
 * the shape in which workers add up waits per minute and kind (`cyclone_stats_minutes`) and the
 * server merges them. Fixed buckets make merging an element-wise sum, whatever worker counted.
 *
 * Bucket 0 counts waits under 1 ms; bucket `i` (1 to 62) counts waits in
 * [2^((i-1)/2), 2^(i/2)) ms, two buckets per doubling; bucket 63 counts waits of 2^31 ms (about
 * 25 days) and more. A percentile read from it is off by at most a factor of √2.
 */
export const WaitBucketCount = 64;

/** The bucket a wait of `ms` milliseconds falls in. */
export function waitBucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  const bucket = Math.floor(2 * Math.log2(ms)) + 1;
  return bucket >= WaitBucketCount - 1 ? WaitBucketCount - 1 : bucket;
}

/** The lower bound of a bucket, in milliseconds (0 for bucket 0). */
export function waitBucketLowerMs(bucket: number): number {
  return bucket <= 0 ? 0 : 2 ** ((bucket - 1) / 2);
}

/** The upper bound of a bucket, in milliseconds (infinite for the last one). */
export function waitBucketUpperMs(bucket: number): number {
  return bucket >= WaitBucketCount - 1 ? Infinity : 2 ** (bucket / 2);
}

/**
 * The wait below which a fraction `q` (0 to 1) of the counted waits fall, in milliseconds, or
 * undefined when nothing was counted. Within the bucket holding it, the value is its geometric
 * middle (the middle of a log-scale bucket): 0.5 ms for bucket 0, the lower bound for the last.
 */
export function waitPercentileMs(buckets: readonly number[], q: number): number | undefined {
  let total = 0;
  for (const n of buckets) total += n;
  if (total === 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i] ?? 0;
    if (seen >= rank) {
      if (i === 0) return 0.5;
      if (i >= WaitBucketCount - 1) return waitBucketLowerMs(i);
      return Math.sqrt(waitBucketLowerMs(i) * waitBucketUpperMs(i));
    }
  }
  return waitBucketLowerMs(buckets.length - 1);
}

/** Adds `from` into `into`, bucket by bucket (both of {@link WaitBucketCount} entries). */
export function addWaitBuckets(into: number[], from: readonly number[]): void {
  for (let i = 0; i < WaitBucketCount; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
}
