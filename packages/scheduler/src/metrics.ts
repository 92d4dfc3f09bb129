import type { Counter, Registry } from 'prom-client';
import type { MetricsRegistry } from './metrics-registry.js';
import type { PromClient } from './load-prom-client.js';

/** What {@link SchedulerMetrics} reads and where it registers. */
export interface SchedulerMetricsOptions {
  readonly prom: PromClient;
  /** The application's registry (or a worker's), or undefined for a registry of its own. */
  readonly registry: MetricsRegistry | undefined;
  /** Whether this replica leads now; read at scrape time. */
  readonly isLeader: () => boolean;
  readonly scanners: readonly string[];
}

/**
 * A scheduler's Prometheus metrics: whether this replica leads (a gauge read at scrape time), and
 * the scanner passes it ran, by scanner and result.
 */
export class SchedulerMetrics {
  readonly registry: MetricsRegistry;
  private readonly passes = new Map<string, { ok: Counter.Internal; error: Counter.Internal }>();

  constructor(options: SchedulerMetricsOptions) {
    const { prom, isLeader } = options;
    const registry = (options.registry ?? new prom.Registry()) as Registry;
    this.registry = registry;
    new prom.Gauge({
      name: 'cyclone_scheduler_leader',
      help: 'Whether this scheduler replica holds the leader lease (1) or not (0)',
      registers: [registry],
      collect() {
        this.set(isLeader() ? 1 : 0);
      },
    });
    const passes = new prom.Counter({
      name: 'cyclone_scheduler_scanner_passes_total',
      help: 'Scanner passes the leader ran, by scanner and result (ok or error)',
      labelNames: ['scanner', 'result'],
      registers: [registry],
    });
    for (const scanner of options.scanners) {
      this.passes.set(scanner, {
        ok: passes.labels(scanner, 'ok'),
        error: passes.labels(scanner, 'error'),
      });
    }
  }

  /** A scanner pass ended. */
  scanned(scanner: string, result: 'ok' | 'error'): void {
    this.passes.get(scanner)?.[result].inc();
  }

  /** The Prometheus text of every metric in the registry. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
