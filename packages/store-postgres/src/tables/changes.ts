import type { RunChange, StepChange } from '@cyclone/core';

/**
 * The one state a change moves from, for the `from_state` of its events when the statement does
 * not read the row's previous state. Called at module load, so a change whose table rows gain a
 * second from-state fails at import instead of recording a wrong event.
 *
 * @throws TypeError when the change has several from-states
 */
export function singleFrom<C extends StepChange | RunChange>(change: C): C['from'][number] {
  const [from, ...more] = change.from;
  if (from === undefined || more.length > 0) {
    throw new TypeError(
      `${change.entity} change ${change.trigger} -> ${change.to} moves from ${change.from.join(', ')}: read the row's previous state instead`,
    );
  }
  return from;
}
