import type { ErrorKind } from './error-kind.js';
import type { RunState, StepState } from './states.js';

/** The step being explained: the columns of its `cyclone_steps` row that decide what moves it. */
export interface StepFacts {
  readonly id: string;
  readonly node: string;
  /** `task`, `item`, `fan_out`, `child`, `wait_signal`, `wait_any`, `wait_n` or `wait_timer`. */
  readonly nodeType: string;
  readonly kind: string | null;
  readonly state: StepState;
  /** Item tasks: the position in the fan-out list. */
  readonly itemIndex: number | null;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly reclaims: number;
  readonly error: string | null;
  readonly errorKind: ErrorKind | null;
  readonly timedOut: boolean;
  readonly scheduledAt: Date;
  readonly claimedBy: string | null;
  readonly leaseExpiresAt: Date | null;
  readonly waitSignals: readonly string[] | null;
  readonly waitN: number | null;
  readonly waitGathered: number;
  readonly waitDeadlineAt: Date | null;
  readonly childRunId: string | null;
}

/** The fan-out a step belongs to (an item task) or is (a fan-out node), from its item rows. */
export interface FanOutFacts {
  readonly node: string;
  /** The fan-out node's `max_parallel`; null without a limit. */
  readonly maxParallel: number | null;
  /** How many item tasks there are (0 before the node is expanded). */
  readonly items: number;
  /** Items in a state that holds a place in the limit (available, running, paused), by index. */
  readonly holding: readonly number[];
  /** How many of the items are pending (waiting for a place). */
  readonly pending: number;
  /** Items not yet completed, by index (at most a few, for the message). */
  readonly unfinished: readonly number[];
  /** How many items are not yet completed. */
  readonly unfinishedCount: number;
}

/**
 * Everything {@link explainNode} needs, as the store reads it in one statement: the run, the
 * step, its upstream nodes, its fan-out, its child run and the worker registry, with the
 * database's clock.
 */
export interface NodeFacts {
  /** The database's `now()` when the facts were read. */
  readonly now: Date;
  readonly run: { readonly id: string; readonly state: RunState; readonly pausedAt: Date | null };
  readonly step: StepFacts;
  /** The step's upstream nodes with their states, in `dependsOn` order. */
  readonly upstream: readonly { readonly node: string; readonly state: StepState }[];
  /** Set for an item task and a fan-out node. */
  readonly fanOut: FanOutFacts | null;
  /** Set for a child node whose child run exists. */
  readonly child: { readonly id: string; readonly state: RunState } | null;
  /** Workers registered recently enough to count as live, and those of them serving the kind. */
  readonly workers: { readonly live: number; readonly serving: readonly string[] };
  /** The flow limits of the step's kind and what they hold now; null when it has none. */
  readonly limits?: LimitFacts | null;
  /** Set for a claimable step of a kind under fair share: its key and whose turn it is now. */
  readonly fairShare?: FairShareFacts | null;
}

/** A claimable step of a kind under fair share: its keys take turns. */
export interface FairShareFacts {
  /** The step's concurrency key (null: the group of steps without a key). */
  readonly key: string | null;
  /** The key whose turn it is (or was last), the keyless group, or null before the first turn. */
  readonly turn: { readonly key: string } | { readonly keyless: true } | null;
}

/** A kind's flow limits as they bear on one step, counted by the step's concurrency key. */
export interface LimitFacts {
  readonly concurrency: {
    readonly max: number;
    readonly perKey: boolean;
    /** The step's concurrency key (null: none), which a per-key cap counts by. */
    readonly key: string | null;
    /** Steps running now that hold the places: of the key under a per-key cap, else of the kind. */
    readonly running: number;
  } | null;
  readonly rate: {
    readonly limit: number;
    /** The period as it was given. */
    readonly period: string;
    readonly perKey: boolean;
    readonly key: string | null;
    /** Starts within the window now (of the key under a per-key limit). */
    readonly starts: number;
    /** When the window has room again: the oldest start in it plus the period. */
    readonly until: Date | null;
  } | null;
}
