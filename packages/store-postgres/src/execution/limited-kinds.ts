/**
 * How far a claim under a per-key limit looks beyond what it may take: steps of keys at their
 * limit are passed over, so it reads more claimable steps than it claims (decision 255). Under
 * limits of the whole kind every claimable step is as good as the next, and a claim reads no
 * more than it may take.
 */
export const PerKeyScanExtra = {
  /** What a claim reads beyond its batch when the claims before passed over few or none. */
  least: 100,
  /** The most it ever reads beyond its batch. */
  most: 1_000,
} as const;

/**
 * What a store remembers of the kinds its claims found under a flow limit. A claim sends them
 * straight to their limited claim rather than first through the unlimited claim statement, which
 * would claim none of their steps and only name them as limited again: for a worker that serves
 * limited kinds, one statement a claim fewer. A kind whose limit was removed since is found so by
 * its limited claim and claimed the unlimited way; a kind newly limited is named by the unlimited
 * statement.
 *
 * Those found under fair share are remembered as such: their claim goes straight to the claim of
 * keys in turn, which forgets them again when it finds their fair share removed.
 *
 * For each it also keeps how far the next claim under a per-key limit looks: twice what the last
 * one passed over, between {@link PerKeyScanExtra}'s bounds. A queue whose keys are all distinct
 * then costs a claim little more than its batch, and one with busy keys as far as it needs.
 */
export class LimitedKinds {
  /** Each limited kind and how many claimable steps its next claim reads beyond its batch. */
  private readonly kinds = new Map<string, number>();

  /** The limited kinds found under fair share, claimed by `claimFairSteps`. */
  private readonly fair = new Set<string>();

  /** The asked-for kinds not known to be limited, in their order. */
  unlimitedOf(kinds: readonly string[]): readonly string[] {
    return this.kinds.size === 0 ? kinds : kinds.filter((kind) => !this.kinds.has(kind));
  }

  /** The asked-for kinds known to be limited, in their order. */
  limitedOf(kinds: readonly string[]): string[] {
    return this.kinds.size === 0 ? [] : kinds.filter((kind) => this.kinds.has(kind));
  }

  add(kind: string): void {
    if (!this.kinds.has(kind)) this.kinds.set(kind, PerKeyScanExtra.least);
  }

  delete(kind: string): void {
    this.kinds.delete(kind);
    this.fair.delete(kind);
  }

  /** Records that `kind` is under fair share (its claim found its fair-share row). */
  markFair(kind: string): void {
    this.add(kind);
    this.fair.add(kind);
  }

  /** Whether `kind` was last found under fair share. */
  isFair(kind: string): boolean {
    return this.fair.has(kind);
  }

  /** How many claimable steps a claim of `kind` under a per-key limit reads beyond its batch. */
  scanExtra(kind: string): number {
    return this.kinds.get(kind) ?? PerKeyScanExtra.least;
  }

  /** Records how many candidates a claim of `kind` under a per-key limit passed over. */
  passedOver(kind: string, passed: number): void {
    const extra = Math.min(PerKeyScanExtra.most, Math.max(PerKeyScanExtra.least, 2 * passed));
    this.kinds.set(kind, extra);
  }
}
