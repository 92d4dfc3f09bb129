/**
 * The soak's pass criteria, judged on its figures. The bounds are stated in docs/reliability.md,
 * set from measured runs with room for a machine shared with other work.
 */
import type { SoakResult } from './soak.js';

/** Throughput with the snapshot held open, as a fraction of the steady phase's, at least. */
export const SnapshotThroughputFraction = 0.9;
/** Seconds after the snapshot (or the burst) ends until the backlog is back to steady, at most. */
export const RecoveryBoundS = 60;
/**
 * The tables at the end, as a multiple of their size at the end of the first recovery or of the
 * burst (the larger), at most. Both are baselines because a table's size is a high-water mark:
 * when the held snapshot ends, vacuum may truncate the heap's empty tail, leaving the first
 * recovery below the working set, and the burst (twice the rate within one retention window)
 * raises the mark, after which its space is reused, not returned. What the bound catches is growth
 * that goes on once retention and vacuum run.
 */
export const SizeGrowthBound = 1.3;
/** p99 of the claim statement's time in every phase, at most (ms). */
export const ClaimP99BoundMs = 2_000;

/** One criterion: what it asks, what was measured, whether it held. */
export interface Verdict {
  readonly criterion: string;
  readonly measured: string;
  readonly passed: boolean;
}

/** Judges every criterion. */
export function judge(result: SoakResult): Verdict[] {
  const phase = (name: string) => result.phases.find((p) => p.phase === name)!;
  const steady = phase('steady');
  const snapshot = phase('snapshot');
  const recovery = phase('recovery');
  const burst = phase('burst');
  const baselineBytes = Math.max(recovery.totalBytes, burst.totalBytes);
  const end = result.phases[result.phases.length - 1]!;
  const verdicts: Verdict[] = [
    {
      criterion: 'no step lost',
      measured: `${result.lost} of ${result.submitted} never returned`,
      passed: result.lost === 0,
    },
    {
      criterion: 'none completed twice',
      measured: `${result.twice} returned more than once`,
      passed: result.twice === 0,
    },
    {
      criterion: 'every run completed',
      measured: `${result.unfinishedRuns} runs not completed after the drain`,
      passed: result.unfinishedRuns === 0,
    },
    {
      criterion: `throughput with the snapshot held >= ${SnapshotThroughputFraction} x steady`,
      measured: `${snapshot.completedPerS}/s vs ${steady.completedPerS}/s (${(
        snapshot.completedPerS / Math.max(1, steady.completedPerS)
      ).toFixed(2)})`,
      passed: snapshot.completedPerS >= SnapshotThroughputFraction * steady.completedPerS,
    },
    {
      criterion: `back to steady <= ${RecoveryBoundS} s after the snapshot ends`,
      measured: `${result.recoveryAfterSnapshotS ?? 'never'} s (backlog <= ${result.steadyOutstandingBound})`,
      passed:
        result.recoveryAfterSnapshotS !== undefined &&
        result.recoveryAfterSnapshotS <= RecoveryBoundS,
    },
    {
      criterion: `back to steady <= ${RecoveryBoundS} s after the burst ends`,
      measured: `${result.recoveryAfterBurstS ?? 'never'} s`,
      passed:
        result.recoveryAfterBurstS !== undefined && result.recoveryAfterBurstS <= RecoveryBoundS,
    },
    {
      criterion: `tables at the end <= ${SizeGrowthBound} x their size after the first recovery or the burst`,
      measured: `${(end.totalBytes / 1_048_576).toFixed(1)} MB vs ${(baselineBytes / 1_048_576).toFixed(1)} MB (${(
        end.totalBytes / Math.max(1, baselineBytes)
      ).toFixed(2)})`,
      passed: end.totalBytes <= SizeGrowthBound * baselineBytes,
    },
  ];
  for (const p of result.phases) {
    verdicts.push({
      criterion: `claim p99 <= ${ClaimP99BoundMs} ms (${p.phase})`,
      measured: `${p.claimP99Ms.toFixed(1)} ms`,
      passed: p.claimP99Ms <= ClaimP99BoundMs,
    });
  }
  return verdicts;
}
