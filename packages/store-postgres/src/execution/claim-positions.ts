/**
 * How often, at least, a kind's claim walks its default priority from the start of the claim
 * index rather than from its position: the longest a step left behind the position waits.
 */
export const ClaimWalkFromStartMs = 1_000;

/** A kind's position: where its next claim of the default priority starts, and since when. */
interface Position {
  /** The `scheduled_at` of the first default-priority step the last claim got (UTC, to the µs). */
  readonly at: string;
  /** When (on {@link ClaimPositions}' clock) this kind's claim last walked from the start. */
  readonly walkedFromStart: number;
}

/**
 * Where a store's claims of each kind start walking the default priority's range of the claim
 * index (decisions 331, 335): at the `scheduled_at` of the first default-priority step the kind's
 * last claim got, rather than at the front. Every step before it was claimed when the position was
 * taken, and their index entries stay behind as dead ones until vacuum removes them; under a long
 * transaction that holds vacuum back, a claim from the front walks all of them, one from the
 * position only its own batch's.
 *
 * A step can still become claimable behind the position (a transaction that took its `now()` for
 * the step's `scheduled_at` before the position's step and committed after, a released, resumed or
 * re-prioritised step, a row another claim locked and let go): a kind's claim walks from the start
 * again at least every {@link ClaimWalkFromStartMs}, and the next claim after one that came back
 * short does too, so such a step waits at most that long. Nothing here is shared or stored: the
 * positions live in this process's memory and are bound as parameters, which holds behind a
 * pooler in transaction mode, and a new store starts from the front.
 */
export class ClaimPositions {
  private readonly positions = new Map<string, Position>();

  /**
   * @param walkFromStartMs the longest a kind's claims go on from a position before walking from
   *   the start again.
   * @param now the clock, in milliseconds.
   */
  constructor(
    private readonly walkFromStartMs = ClaimWalkFromStartMs,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** For each of `kinds`, where its claim starts: its position, or null for the start. */
  from(kinds: readonly string[]): (string | null)[] {
    if (this.positions.size === 0) return kinds.map(() => null);
    const now = this.now();
    return kinds.map((kind) => {
      const position = this.positions.get(kind);
      return position && now - position.walkedFromStart < this.walkFromStartMs ? position.at : null;
    });
  }

  /**
   * Records a claim of `kinds` that started from `from` (as {@link from} gave it): whether it got
   * all it asked for, and, per kind, the `scheduled_at` of the first default-priority step it got.
   * A claim that came back short forgets the kinds' positions, so the next one walks from the
   * start; a kind whose full claim got none of the default priority keeps its position.
   */
  record(
    kinds: readonly string[],
    from: readonly (string | null)[],
    full: boolean,
    first: ReadonlyMap<string, string>,
  ): void {
    const now = this.now();
    kinds.forEach((kind, i) => {
      const at = first.get(kind);
      if (!full || (at === undefined && from[i] === null)) {
        this.positions.delete(kind);
        return;
      }
      const walkedFromStart = from[i] === null ? now : this.positions.get(kind)?.walkedFromStart;
      if (walkedFromStart === undefined) {
        // Forgotten meanwhile by a concurrent claim that came back short: start from the front.
        this.positions.delete(kind);
        return;
      }
      this.positions.set(kind, { at: at ?? from[i]!, walkedFromStart });
    });
  }
}
