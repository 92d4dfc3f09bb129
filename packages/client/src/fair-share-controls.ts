import { z } from 'zod';
import { LimitControls, parseOptions } from './limit-controls.js';
import { parseKind } from './options.js';

/** A kind's fair share: its keys take their turns in proportion to their weights. */
export interface FairShareOptions {
  /** The handler kind. */
  readonly kind: string;
  /**
   * Steps a concurrency key takes in its turn, by key: whole numbers from 1 to
   * {@link MaxFairShareWeight}. Keys not named, and the group of steps without a key, weigh 1.
   * @defaultValue {}
   */
  readonly weights?: Readonly<Record<string, number>>;
}

/** A kind under fair share. */
export interface FairShare {
  readonly kind: string;
  readonly weights: Readonly<Record<string, number>>;
  /** Concurrency keys with claimable steps of the kind now (steps without a key not counted). */
  readonly keys: number;
}

/** Largest weight of a key. */
export const MaxFairShareWeight = 1_000;

/** Most keys given a weight of their own. */
export const MaxFairShareWeights = 10_000;

const weight = z.custom<number>(
  (v) => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MaxFairShareWeight,
  { message: `expected a weight: a whole number from 1 to ${MaxFairShareWeight}` },
);
const fairShareSchema = z
  .object({
    kind: z.unknown(),
    weights: z
      .record(z.string().min(1, 'expected a concurrency key'), weight)
      .refine((w) => Object.keys(w).length <= MaxFairShareWeights, {
        message: `expected at most ${MaxFairShareWeights} weights`,
      })
      .optional(),
  })
  .strict();

/**
 * The fair-share side of the {@link Client}: when several concurrency keys have claimable steps of
 * a kind, claims take the keys in turn, each up to its weight a turn, so one key's backlog cannot
 * hold back another key's steps (decisions 370-379). Priority still orders first; caps and rate
 * limits still hold. Stored in the database and obeyed by every worker; setting or removing it
 * wakes the kind's workers.
 */
export abstract class FairShareControls extends LimitControls {
  /**
   * Puts a kind under fair share, or replaces its weights.
   * @throws ValidationError naming `kind` or `weights.<key>`; nothing is written
   */
  async setFairShare(options: FairShareOptions): Promise<void> {
    const o = parseOptions(fairShareSchema, options, 'fair share');
    await this.store.setFairShare({ kind: parseKind(o.kind), weights: o.weights ?? {} });
  }

  /** Takes a kind out of fair share; false when it was not under it. @throws ValidationError for a bad kind */
  async removeFairShare(kind: string): Promise<boolean> {
    return this.store.removeFairShare(parseKind(kind));
  }

  /** Every kind under fair share, by kind, with its keys that have claimable steps now. */
  async listFairShares(): Promise<FairShare[]> {
    return this.store.listFairShares();
  }
}
