/** Quantiles and formatting of the soak's figures. */

/** The `q` quantile (0..1) of `values`, or 0 when there are none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Milliseconds, to a readable precision. */
export function ms(value: number): string {
  if (value >= 10_000) return `${(value / 1000).toFixed(1)}s`;
  if (value >= 100) return `${Math.round(value)}ms`;
  return `${value.toFixed(1)}ms`;
}

/** Bytes, in megabytes. */
export function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)}MB`;
}

/** `m:ss` of a duration in milliseconds. */
export function clock(msValue: number): string {
  const seconds = Math.max(0, Math.round(msValue / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
