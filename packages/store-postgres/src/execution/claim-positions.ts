/**
 * How often, at least, a kind's claim walks its default priority from the start of the claim
 * index rather than from its position: how long a step left behind the position waits while
 * claims of its kind go on.
 */
export const ClaimWalkFromStartMs = 1_000;

/**
 * How far before its position a kind's claim starts: a step whose transaction took its `now()`
 * for `scheduled_at` up to this long before the position and committed after it is still seen
 * at once. Under a held snapshot each claim walks the dead entries of this span.
 */
export const ClaimPositionSlackMs = 1_000;

/** A kind's position: where its next claim of the default priority starts, and since when. */
interface Position {
  /** A `scheduled_at` (UTC, ISO 8601 to the µs): every claimable step before it was claimed. */
  readonly at: string;
  /** When (on {@link ClaimPositions}' clock) this kind's claim last walked from the start. */
  readonly walkedFromStart: number;
}

/** What a claim of some kinds saw, for {@link ClaimPositions.record}. */
export interface ClaimSeen {
  /** The kinds it walked. */
  readonly kinds: readonly string[];
  /** Where each started, as {@link ClaimPositions.from} gave it. */
  readonly from: readonly (string | null)[];
  /** Whether it got all it asked for. */
  readonly full: boolean;
  /** Per kind, the `scheduled_at` of the first default-priority step it got. */
  readonly first: ReadonlyMap<string, string>;
  /** The claim's `now()`, where the default priority's range ends. */
  readonly walkedTo: string | null;
}

/**
 * Where a store's claims of each kind start walking the default priority's range of the claim
 * index (decisions 331, 335), rather than at the front. Every step before the position was
 * claimed when it was taken, and their index entries stay behind as dead ones until vacuum
 * removes them; under a long transaction that holds vacuum back, a claim from the front walks all
 * of them, one from the position only those of its last span.
 *
 * A full claim's position is the first default-priority step it got (steps after it are left);
 * a short one's is its own `now()` (it took every claimable step it saw). A claim starts
 * {@link ClaimPositionSlackMs} before the position, so a step whose enqueue, promotion or retry
 * committed a little after the claim with an earlier `scheduled_at` is still seen. A step further
 * behind (a resumed step keeps its time, a claim rolled back, a transaction longer than the
 * slack) waits for the walk from the start, at least every {@link ClaimWalkFromStartMs} per kind.
 * Nothing here is shared or stored: the positions live in this process's memory and are bound as
 * parameters, which holds behind a pooler in transaction mode, and a new store starts from the
 * front.
 */
export class ClaimPositions {
  private readonly positions = new Map<string, Position>();

  /**
   * @param walkFromStartMs the longest a kind's claims go on from a position before walking from
   *   the start again.
   * @param slackMs how far before its position a claim starts.
   * @param now the clock, in milliseconds.
   */
  constructor(
    private readonly walkFromStartMs = ClaimWalkFromStartMs,
    readonly slackMs = ClaimPositionSlackMs,
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

  /** Records what a claim saw: each kind's next position. */
  record(seen: ClaimSeen): void {
    const now = this.now();
    seen.kinds.forEach((kind, i) => {
      const from = seen.from[i] ?? null;
      const walkedFromStart = from === null ? now : this.positions.get(kind)?.walkedFromStart;
      const at =
        seen.first.get(kind) ??
        (seen.full ? (this.positions.get(kind)?.at ?? null) : seen.walkedTo);
      if (walkedFromStart === undefined || at === null) this.positions.delete(kind);
      else this.positions.set(kind, { at, walkedFromStart });
    });
  }

  /** Forgets the positions of `kinds` (claimed by another statement, under a flow limit). */
  forget(kinds: readonly string[]): void {
    for (const kind of kinds) this.positions.delete(kind);
  }
}
