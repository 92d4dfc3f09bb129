/**
 * One of the scheduler's maintenance services (River's model): a named, bounded pass over the
 * database that the leader runs every `interval`. Each pass is safe to run again, and logs what it
 * did.
 */
export interface Scanner {
  /** Stable name, used in logs (e.g. `reclaim-expired-leases`). */
  readonly name: string;
  /** How often the leader runs it, in milliseconds. */
  readonly interval: number;
  /** Runs one pass. */
  runOnce(): Promise<void>;
}
