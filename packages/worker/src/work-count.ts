/**
 * How many pieces of work are under way, and a way to wait until none is: what a set of their
 * promises gives, without a promise and a closure for each piece. The worker starts a piece for
 * every step (its execution, its recording), so the set's bookkeeping was a share of a no-op
 * job's cost.
 */
export class WorkCount {
  #count = 0;
  #waiters: (() => void)[] = [];

  /** Pieces under way. */
  get size(): number {
    return this.#count;
  }

  /** A piece starts. */
  begin(): void {
    this.#count += 1;
  }

  /** A piece ended (each `begin` is matched by one `end`). */
  end(): void {
    this.#count -= 1;
    if (this.#count > 0 || this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once no piece is under way: at once when none is. */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
