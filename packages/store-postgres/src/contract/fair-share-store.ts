/** A kind's fair share, as set: the weights of its keys (a key not named weighs 1). */
export interface FairShareSetting {
  readonly kind: string;
  /** Steps a key takes in its turn, by concurrency key: whole numbers from 1 to 1,000. */
  readonly weights: Readonly<Record<string, number>>;
}

/** A kind under fair share, as listed. */
export interface KindFairShare {
  readonly kind: string;
  readonly weights: Readonly<Record<string, number>>;
  /** Concurrency keys with claimable steps of the kind now (steps without a key not counted). */
  readonly keys: number;
}

/**
 * Fair share between the concurrency keys of a kind, stored in the database and obeyed by every
 * worker: the claims of the kind take its keys in turn, each up to its weight a turn. Setting or
 * removing one wakes the kind's workers.
 */
export interface FairShareCommands {
  /** Puts a kind under fair share, or replaces its weights (the turn stays where it is). */
  setFairShare(setting: FairShareSetting): Promise<void>;
  /** Takes a kind out of fair share; false when it was not under it. */
  removeFairShare(kind: string): Promise<boolean>;
  /** Every kind under fair share, by kind, with its keys that have claimable steps now. */
  listFairShares(): Promise<KindFairShare[]>;
}
