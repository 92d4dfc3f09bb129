/**
 * Classification of the last error recorded on a step. It is a separate axis from the step's state:
 * a later success does not clear it.
 */
export const ErrorKind = {
  /** An ordinary thrown error or a timeout. Retried until attempts run out. */
  Retryable: 'retryable',
  /** `permanent(err)`, an oversize output, a fan-out limit or a child run with no result. Discards now. */
  Permanent: 'permanent',
  /** The run passed its run deadline. */
  Deadline: 'deadline',
  /** The lease expired again after the step was reclaimed `maxReclaims` times. */
  ReclaimLimit: 'reclaim_limit',
  /** The handler asked to be run later with `snooze(d)`; no attempt is charged. */
  Snooze: 'snooze',
  /** The step's input could not be read (a database error, not bad data); same attempt again. */
  Transient: 'transient',
} as const;
export type ErrorKind = (typeof ErrorKind)[keyof typeof ErrorKind];

/** Every error kind. */
export const ERROR_KINDS: readonly ErrorKind[] = Object.values(ErrorKind);

/** The error kinds that can stand on a discarded step; exactly what the dead-letter queries accept. */
export const DISCARD_REASONS = [
  ErrorKind.Retryable,
  ErrorKind.Permanent,
  ErrorKind.Deadline,
  ErrorKind.ReclaimLimit,
] as const;
export type DiscardReason = (typeof DISCARD_REASONS)[number];

/**
 * Whether recording an error of a kind ends the step, as the state reference's Error Kinds table
 * says: `yes` (the step is discarded), `no` (the step runs again, no attempt charged) or `both`
 * (retried while attempts remain, discarded on the last one). Exactly the kinds that are not `no`
 * are {@link DISCARD_REASONS}.
 */
export const ERROR_KIND_TERMINAL: Readonly<Record<ErrorKind, 'yes' | 'no' | 'both'>> =
  Object.freeze({
    retryable: 'both',
    permanent: 'yes',
    deadline: 'yes',
    reclaim_limit: 'yes',
    snooze: 'no',
    transient: 'no',
  });

/** What a step does when one of its dependencies is discarded. */
export const OnDepFailure = {
  /** Default: the discard fails the run (fail-fast cancels the other non-terminal steps). */
  FailRun: 'fail_run',
  /** Cancel this node (and its own downstream) instead; the run can still complete. */
  CancelBranch: 'cancel_branch',
} as const;
export type OnDepFailure = (typeof OnDepFailure)[keyof typeof OnDepFailure];
