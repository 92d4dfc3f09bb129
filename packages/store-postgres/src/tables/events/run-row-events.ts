import { assertRunTransition, RunState, RunTrigger, runChange } from '@cyclone/core';

/**
 * The run events that the run's row tells, so they are never stored (decision 130): a run's
 * submission (`created_at`) and its completion (`state = 'completed'`, `ended_at`). A run is
 * submitted once and `completed` is terminal, so each happens at most once, first and last; the
 * events API derives them from the row and lists them with the stored ones, at fixed ids that
 * keep them first and last in id order and under the `after` cursor.
 */
// A run is inserted `running` (there is no pending run state): the table's `(inserted) -> running`.
assertRunTransition(null, RunState.Running, RunTrigger.Submit);
export const runSubmitted = { to: RunState.Running, trigger: RunTrigger.Submit } as const;
export const runCompleted = runChange(RunTrigger.Complete, RunState.Completed);

/** The id the derived `run_submitted` event is listed under: before every stored event. */
export const SubmittedEventId = 0;
/** The id the derived `run_completed` event is listed under: after every stored event. */
export const CompletedEventId = Number.MAX_SAFE_INTEGER;
