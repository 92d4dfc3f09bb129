/**
 * Which inputs the soak submitted and how many times each one's handler returned: a step lost
 * never returns, a step run twice returns twice.
 */
export class Ledger {
  private counts = new Uint8Array(1 << 16);
  /** Inputs submitted so far: `0 .. submitted - 1`. */
  submitted = 0;
  /** Handler returns received so far. */
  returned = 0;
  /** Inputs whose handler returned at least once. */
  private distinct = 0;

  /** The next `n` inputs, counted as submitted. */
  take(n: number): number[] {
    const first = this.submitted;
    this.submitted += n;
    while (this.counts.length < this.submitted) {
      const grown = new Uint8Array(this.counts.length * 2);
      grown.set(this.counts);
      this.counts = grown;
    }
    return Array.from({ length: n }, (_, k) => first + k);
  }

  /** Records that the handler of input `i` returned. */
  record(i: number): void {
    if (i >= 0 && i < this.counts.length && this.counts[i]! < 255) {
      if (this.counts[i] === 0) this.distinct++;
      this.counts[i]!++;
    }
    this.returned++;
  }

  /** Submitted inputs not returned yet. */
  get outstanding(): number {
    return this.submitted - this.distinct;
  }

  /** Inputs never returned, and inputs returned more than once. */
  audit(): { lost: number; twice: number } {
    let lost = 0;
    let twice = 0;
    for (let i = 0; i < this.submitted; i++) {
      if (this.counts[i] === 0) lost++;
      else if (this.counts[i]! > 1) twice++;
    }
    return { lost, twice };
  }
}
