/**
 * What an operation returns when it may have left other runs to settle: its own result, and the
 * runs it wrote to the settlement outbox that the facade settles once its transaction committed
 * (a child run it started, the parent of a run it ended). Nothing is lost when that settling
 * fails: the markers stay in the outbox for the `settle-pending` scanner.
 */
export interface Settled<T> {
  readonly value: T;
  readonly followUps: readonly string[];
}

/** A {@link Settled} with follow-ups gathered from several places. */
export function settled<T>(value: T, ...followUps: Iterable<string>[]): Settled<T> {
  const all = new Set<string>();
  for (const ids of followUps) for (const id of ids) all.add(id);
  return { value, followUps: [...all] };
}
