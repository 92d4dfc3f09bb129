/**
 * `@cyclone/core`: the pure heart of Cyclone. States, error kinds, the transition table and the rules
 * over it, workflow definitions, durations, backoff and error classes. No I/O.
 *
 * @example
 * ```ts
 * import { RunState, isTerminalRun } from '@cyclone/core';
 * if (isTerminalRun(run.state)) console.log('done:', run.state === RunState.Completed);
 * ```
 *
 * @packageDocumentation
 */
export * from './states.js';
export * from './error-kind.js';
export * from './errors.js';
export * from './duration.js';
export * from './outcomes.js';
export * from './limits.js';
