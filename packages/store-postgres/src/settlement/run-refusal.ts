import {
  AlreadyPausedError,
  AlreadyTerminalError,
  NotPausedError,
  proposeRun,
  type RunState,
  type RunTrigger,
} from '@cyclone/core';

/**
 * Asks core's rule whether `trigger` may move a run from `from` to `to`, and turns a refusal into
 * the operator error a caller expects, carrying the rule's rejection reason. Nothing has been
 * written when it throws.
 *
 * @throws NotPausedError for a resume of a run that is not paused; AlreadyTerminalError for any
 *   other change of a terminal run; AlreadyPausedError for a pause of a paused run
 */
export function assertRunMove(
  runId: string,
  from: RunState,
  to: RunState,
  trigger: RunTrigger,
): void {
  const proposal = proposeRun(from, to, trigger);
  if (proposal.accepted) return;
  const options = { reason: proposal.reason, cause: new Error(proposal.message) };
  // Resume names the state it needs, whatever the run is now (a terminal run is not paused either).
  if (trigger === 'resume') throw new NotPausedError(runId, from, options);
  if (proposal.reason === 'terminal') throw new AlreadyTerminalError(runId, from, options);
  if (trigger === 'pause') throw new AlreadyPausedError(runId, options);
  throw new AlreadyTerminalError(runId, from, options);
}
