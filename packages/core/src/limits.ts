/** Default largest number of items a fan-out node may expand; overridable per node (`maxItems`). */
export const MaxFanOutItems = 10_000;

/**
 * Default largest size, in bytes of UTF-8 JSON, of a step output or of a fan-out node's collected
 * output. A larger output discards the step with error kind `permanent`.
 */
export const OutputBytes = 1_048_576;

/** Default largest size, in bytes of UTF-8 JSON, of a run's input or a job's arguments. */
export const InputBytes = 1_048_576;

/**
 * How many executions an operator retry guarantees: `max_attempts` is raised to at least
 * `attempts + RetryAdditionalAttempts`.
 */
export const RetryAdditionalAttempts = 1;

/** Default attempts for a task node when none is given. */
export const DefaultMaxAttempts = 3;

/**
 * Default `maxReclaims` of a run: how many times the recovery sweep puts back a step whose lease
 * expired (its worker died or stalled) before the next expiry discards it with `reclaim_limit`.
 * Finite, so a step that crashes its worker every time ends in the DLQ instead of taking workers
 * down forever; generous, so that crashes and kills unrelated to the step do not get there.
 */
export const DefaultMaxReclaims = 10;
