/**
 * How many trials a scenario runs. Defaults are sized for CI (the whole suite in a few minutes on
 * a loaded two-core machine); `CYCLONE_FAULT_TRIALS` scales every one of them, e.g. `5` for a
 * longer local run or `0.2` for a quick look.
 */

/** The scale factor from `CYCLONE_FAULT_TRIALS` (default 1). */
export function trialScale(): number {
  const raw = process.env.CYCLONE_FAULT_TRIALS;
  if (raw === undefined || raw.trim() === '') return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new Error(`CYCLONE_FAULT_TRIALS must be a positive number, got ${JSON.stringify(raw)}`);
  }
  return scale;
}

/** `base` scaled by `CYCLONE_FAULT_TRIALS`, at least `min` (default 1). */
export function trials(base: number, min = 1): number {
  return Math.max(min, Math.round(base * trialScale()));
}
