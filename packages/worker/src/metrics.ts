import type { Logger } from 'pino';
import type { Counter as PromCounter, Histogram as PromHistogram, Registry } from 'prom-client';
import type { ClaimedStep, MetricsReads } from '@cyclone/store-postgres';
import { MetricsUnavailableError } from '@cyclone/core';
import type { MetricsRegistry } from '@cyclone/scheduler';
import { DatabaseGauges, loadPromClient, type PromClient } from '@cyclone/scheduler/prom-client';
import { loggableError } from './log-error.js';
import type { StepMetrics } from './step-metrics.js';

/** Handler run times, in seconds: from a quick handler to a five-minute one. */
const HandlerBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Claim statement times, in seconds. */
const ClaimBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** How long steps waited, claimable, for a worker, in seconds. */
const QueueWaitBuckets = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

type Counter = PromCounter.Internal;
type Histogram = PromHistogram.Internal<string>;

/** A kind's series, bound once so that the hot path only increments. */
interface KindSeries {
  readonly claimed: Counter;
  readonly completed: Counter;
  readonly retried: Counter;
  readonly discarded: Counter;
  readonly snoozed: Counter;
  readonly dropped: Counter;
  readonly handler: Histogram;
  readonly queueWait: Histogram;
}

/** What a {@link WorkerMetrics} is built from. */
export interface WorkerMetricsOptions {
  readonly prom: PromClient;
  /** The application's registry, or undefined for a registry of the worker's own. */
  readonly registry: MetricsRegistry | undefined;
  readonly kinds: readonly string[];
  readonly store: MetricsReads;
  readonly logger: Logger;
}

/**
 * A worker's Prometheus metrics: counters and histograms fed by the hot path (see
 * {@link StepMetrics}), and the gauges read from the database at scrape time for the worker's own
 * kinds ({@link DatabaseGauges}, the same the HTTP server prints).
 */
export class WorkerMetrics implements StepMetrics {
  /** Where the metrics are registered: the application's registry or the worker's own. */
  readonly registry: MetricsRegistry;
  private readonly series = new Map<string, KindSeries>();
  private readonly claimDuration: Histogram;
  private readonly bind: (kind: string) => KindSeries;

  constructor(options: WorkerMetricsOptions) {
    const { prom } = options;
    const registry = (options.registry ?? new prom.Registry()) as Registry;
    this.registry = registry;
    const registers = [registry];
    const counter = (name: string, help: string, labelNames: string[] = ['kind']) =>
      new prom.Counter({ name, help, labelNames, registers });
    const claimed = counter('cyclone_steps_claimed_total', 'Steps claimed, by handler kind');
    const completed = counter(
      'cyclone_steps_completed_total',
      'Successes recorded, by handler kind',
    );
    const failed = counter(
      'cyclone_steps_failed_total',
      'Failures recorded, by handler kind and outcome (retried or discarded)',
      ['kind', 'outcome'],
    );
    const snoozed = counter('cyclone_steps_snoozed_total', 'Snoozes recorded, by handler kind');
    const dropped = counter(
      'cyclone_step_results_dropped_total',
      'Outcomes dropped because the claim had moved on (a lost lease), by handler kind',
    );
    const handler = new prom.Histogram({
      name: 'cyclone_step_handler_duration_seconds',
      help: 'Handler run time, by handler kind',
      labelNames: ['kind'],
      buckets: HandlerBuckets,
      registers,
    });
    const queueWait = new prom.Histogram({
      name: 'cyclone_step_queue_wait_seconds',
      help: 'How long a step had been claimable when it was claimed (database clock), by handler kind',
      labelNames: ['kind'],
      buckets: QueueWaitBuckets,
      registers,
    });
    this.claimDuration = new prom.Histogram({
      name: 'cyclone_claim_duration_seconds',
      help: 'Time of one claim statement, as the worker sees it',
      buckets: ClaimBuckets,
      registers,
    }).labels();
    this.bind = (kind) => {
      const series: KindSeries = {
        claimed: claimed.labels(kind),
        completed: completed.labels(kind),
        retried: failed.labels(kind, 'retried'),
        discarded: failed.labels(kind, 'discarded'),
        snoozed: snoozed.labels(kind),
        dropped: dropped.labels(kind),
        handler: handler.labels(kind),
        queueWait: queueWait.labels(kind),
      };
      // prom-client writes a series once it has a value: start each at zero.
      const { claimed: a, completed: b, retried: c, discarded: d, snoozed: e, dropped: f } = series;
      for (const counter of [a, b, c, d, e, f]) counter.inc(0);
      handler.zero({ kind });
      queueWait.zero({ kind });
      return series;
    };
    // Every kind's series exists from the start, at zero: a rate over a counter that appears
    // only with its first increment misses that increment.
    for (const kind of options.kinds) this.series.set(kind, this.bind(kind));
    const { logger } = options;
    new DatabaseGauges({
      prom,
      registers,
      store: options.store,
      kinds: options.kinds,
      discoverKinds: false,
      runs: false,
      // The counters are still served while the database is not.
      onReadError: (error) =>
        logger.warn(
          { error: loggableError(error) },
          'reading the database gauges failed; this scrape omits them',
        ),
    });
  }

  claimed(ms: number, steps: readonly ClaimedStep[]): void {
    this.claimDuration.observe(ms / 1000);
    for (const step of steps) {
      const series = this.of(step.kind);
      series.claimed.inc();
      series.queueWait.observe(step.queueWaitMs / 1000);
    }
  }

  handlerFinished(kind: string, ms: number): void {
    this.of(kind).handler.observe(ms / 1000);
  }

  completed(kind: string): void {
    this.of(kind).completed.inc();
  }

  failed(kind: string, outcome: 'retried' | 'discarded'): void {
    this.of(kind)[outcome].inc();
  }

  snoozed(kind: string): void {
    this.of(kind).snoozed.inc();
  }

  dropped(kind: string): void {
    this.of(kind).dropped.inc();
  }

  /** The Prometheus text of every metric in the registry. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  private of(kind: string): KindSeries {
    let series = this.series.get(kind);
    if (series === undefined) {
      // Only the worker's own kinds are claimed; this is the fallback, not the path.
      series = this.bind(kind);
      this.series.set(kind, series);
    }
    return series;
  }
}

/** What {@link setUpWorkerMetrics} needs. */
export type WorkerMetricsSetup = Omit<WorkerMetricsOptions, 'prom'>;

/**
 * The worker's metrics, or why there are none. With prom-client installed metrics are kept from
 * the start; without it they are not, and only asking for them says so: `metrics()` rejects with
 * the returned error, and `metricsRegistry` (asking up front) throws it here.
 */
export function setUpWorkerMetrics(
  setup: WorkerMetricsSetup,
): WorkerMetrics | MetricsUnavailableError {
  let prom: PromClient;
  try {
    prom = loadPromClient('worker');
  } catch (error) {
    if (setup.registry !== undefined || !(error instanceof MetricsUnavailableError)) throw error;
    return error;
  }
  return new WorkerMetrics({ ...setup, prom });
}
