import type pg from 'pg';
import type { Logger } from 'pino';
import type { Duration, WorkflowDefinition } from '@cyclone/core';
import type { PoolerMode } from '@cyclone/store-postgres';
import type { MetricsRegistry } from '@cyclone/scheduler';
import type { HandlersOption } from './handler-table.js';

/** Options of a {@link Worker}. */
export interface WorkerOptions {
  /** A Postgres URL; the worker then owns (and closes) its pool. */
  readonly connectionString?: string;
  /** Or a pool the application owns; the worker leaves it open. */
  readonly pool?: pg.Pool;
  /**
   * Postgres schema of Cyclone's tables.
   * @defaultValue `'public'`
   */
  readonly schema?: string;
  /**
   * `'transaction'` when `connectionString` (or `pool`) goes through a pooler in transaction mode
   * (PgBouncer `pool_mode = transaction`, Supavisor's transaction port, RDS Proxy): statements are
   * sent unnamed, no session state is kept, and the worker LISTENs only on
   * `listenConnectionString`. Without one it polls: work is found within `pollInterval` (each
   * written outcome also looks for the next steps at once), and a handler of a cancelled step is
   * aborted at its next heartbeat instead of at once. It logs which, once, at start. See
   * docs/poolers.md.
   * @defaultValue `'none'` (a direct connection, or a pooler in session mode)
   */
  readonly pooler?: PoolerMode;
  /**
   * A direct (or session-mode) URL to LISTEN on for wake-ups when `connectionString` goes
   * through a transaction-mode pooler; one connection of it is held while the worker runs.
   * @defaultValue none: LISTEN on the main connection, or poll with `pooler: 'transaction'`
   */
  readonly listenConnectionString?: string;
  /**
   * Handlers by kind, or a list of such maps (`[handlersFor(order, {...}), { 'emails.send': send }]`),
   * merged: handlers from `handlersFor` of one kind dispatch by workflow and node, and at most one
   * plain handler a kind takes the kind's other steps. The worker claims steps of exactly these kinds.
   */
  readonly handlers: HandlersOption;
  /** Workflows this worker serves; every task kind they use must have a handler here. */
  readonly workflows?: readonly WorkflowDefinition[];
  /**
   * Steps executed at once.
   * @defaultValue 10
   */
  readonly concurrency?: number;
  /**
   * Steps claimed ahead of a free slot, so that a finished step's slot is refilled without a
   * round trip and claims come in batches. Buffered steps hold leases (renewed by the heartbeat)
   * and are released, unstarted, at `stop()`. By default the worker adapts: while its handlers'
   * moving-average run time is under 20 ms it keeps a local queue of up to 500 steps (about half
   * a second of work for its slots, at least `concurrency`), so claims come in large batches at
   * any concurrency; otherwise none, so with slow handlers it never sits on a step another worker
   * could run now, and what it held when they turned slow is released after 2 s unstarted.
   * @defaultValue adaptive (0, or between `concurrency` and 500)
   */
  readonly prefetch?: number;
  /**
   * How long a claim holds without a heartbeat; a worker that dies loses its steps after this.
   * @defaultValue `'30s'`
   */
  readonly leaseDuration?: Duration;
  /**
   * How often leases are renewed while handlers run.
   * @defaultValue a third of `leaseDuration`
   */
  readonly heartbeatInterval?: Duration;
  /**
   * How often to look for work when no notification came (a missed one, or a step whose
   * `scheduled_at` arrived). With `pooler: 'transaction'` and no `listenConnectionString`, the
   * only way other processes' work is found: an idle worker starts a new step within it.
   * @defaultValue `'1s'`
   */
  readonly pollInterval?: Duration;
  /**
   * Largest step output, in bytes of UTF-8 JSON; a larger one discards the step (`permanent`).
   * @defaultValue `OutputBytes` (1 MiB)
   */
  readonly maxOutputBytes?: number;
  /**
   * Most completions written in one statement. A batch also stops at about 8 MiB of outputs, and
   * at 350 completions once it holds a workflow step's, whose dependents wait for its commit.
   * @defaultValue 500
   */
  readonly completionBatchSize?: number;
  /**
   * Whether the info-level `step failed` log line carries the handler's error message. By default
   * it carries the error's class name and code only, because messages routinely hold secrets (a
   * connection string, a token). Even when enabled, the message is passed through a redaction of
   * known secret patterns (URL passwords, `password=`, `secret=`, `token=`, bearer tokens) and
   * capped; the stored error is not affected.
   * @defaultValue false
   */
  readonly logErrorMessages?: boolean;
  /**
   * Whether the worker stops itself on SIGTERM and SIGINT. On the first signal it stops claiming
   * and stops gracefully (`stop({ timeout })`), then raises the signal again if nothing else
   * listens for it, so the process ends as it would have; a second signal aborts the handlers,
   * releases the steps whose handlers settled, and exits with code 128 + the signal number. Off by
   * default: a library installs no signal handlers unless asked.
   * @defaultValue false
   */
  readonly handleSignals?: boolean | { readonly timeout?: Duration };
  /** A pino logger; the worker logs through a child of it. @defaultValue `pino({ name: 'cyclone-worker' })` */
  readonly logger?: Logger;
  /**
   * Runs the scheduler's scanners (recovery sweep, run deadlines, retention, ...) in this process,
   * with leader election as usual: for single-process deployments and `cyclone dev`. Pass
   * `{ interval }` to set how often they run.
   * @defaultValue false
   */
  readonly scheduler?: boolean | { readonly interval?: Duration };
  /**
   * With `scheduler`, how long finished runs are kept before the retention scanner deletes them;
   * `false` keeps all.
   * @defaultValue `'7d'`
   */
  readonly retention?: Duration | false;
  /**
   * A prom-client `Registry` of the application to register the worker's metrics in, so that the
   * application's own `/metrics` serves them (one worker per registry: the names would clash). By
   * default the worker keeps a registry of its own, read by `worker.metrics()`. Needs prom-client,
   * an optional peer dependency: given without it, the constructor throws `MetricsUnavailableError`.
   * @defaultValue a registry of the worker's own (when prom-client is installed)
   */
  readonly metricsRegistry?: MetricsRegistry;
  /** This worker's id in claims, events and logs. @defaultValue `<hostname>:<pid>:<random>` */
  readonly id?: string;
  /** Random source of the backoff jitter (tests pass a seeded one). @defaultValue `Math.random` */
  readonly random?: () => number;
}

/** Options of {@link Worker.stop}. */
export interface StopOptions {
  /**
   * How long in-flight handlers may take to finish before they are aborted. A step whose handler
   * then settles within `ShutdownAbortGraceMs` is released (back to available, no attempt
   * charged); a step whose handler ignores the abort is left to its lease, so that no second
   * execution starts while it may still run.
   * @defaultValue `'10s'`
   */
  readonly timeout?: Duration;
}
