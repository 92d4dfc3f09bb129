/** The phases of a soak, scaled to its length. */

export type PhaseName = 'steady' | 'snapshot' | 'recovery' | 'burst' | 'after-burst';

/** One phase: from `startMs` to `endMs` after the soak's start. */
export interface Phase {
  readonly name: PhaseName;
  readonly startMs: number;
  readonly endMs: number;
  /** The offered rate, as a multiple of the steady rate. */
  readonly rateFactor: number;
  /** Whether a REPEATABLE READ transaction holds its snapshot open through the phase. */
  readonly holdsSnapshot: boolean;
}

/**
 * The phases of a soak of `minutes`: for 30 minutes, 5 of steady state, 10 with a REPEATABLE READ
 * snapshot held open, 6 of recovery, 2 at twice the rate, 7 of recovery; shorter and longer runs
 * scale every phase alike.
 */
export function soakPhases(minutes: number): Phase[] {
  const total = minutes * 60_000;
  const at = (fraction: number) => Math.round(total * fraction);
  const plan: [PhaseName, number, number, number, boolean][] = [
    ['steady', 0, 5 / 30, 1, false],
    ['snapshot', 5 / 30, 15 / 30, 1, true],
    ['recovery', 15 / 30, 21 / 30, 1, false],
    ['burst', 21 / 30, 23 / 30, 2, false],
    ['after-burst', 23 / 30, 1, 1, false],
  ];
  return plan.map(([name, from, to, rateFactor, holdsSnapshot]) => ({
    name,
    startMs: at(from),
    endMs: at(to),
    rateFactor,
    holdsSnapshot,
  }));
}

/** The phase at `ms` after the start, or undefined past the end. */
export function phaseAt(phases: readonly Phase[], ms: number): Phase | undefined {
  return phases.find((p) => ms >= p.startMs && ms < p.endMs);
}
