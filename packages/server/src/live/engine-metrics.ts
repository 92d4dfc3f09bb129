import type { Client } from '@cyclone/client';
import { DatabaseGauges } from '@cyclone/scheduler/prom-client';
import * as prom from 'prom-client';

/**
 * The engine's gauges in Prometheus form, read from the database at each scrape: nothing is
 * counted in this process, so every replica of the server reports the same numbers and a restart
 * loses nothing. They are the worker's database gauges ({@link DatabaseGauges}), for every kind
 * with available steps (a kind once seen stays, at zero when its queue empties), runs by state, and
 * what each flow limit holds back and how full it is.
 */
export class EngineMetrics {
  /** The registry `/metrics` prints: the one given, or the server's own. */
  readonly registry: prom.Registry;

  constructor(client: Client, registry?: prom.Registry) {
    this.registry = registry ?? new prom.Registry();
    new DatabaseGauges({
      prom,
      registers: [this.registry],
      store: client.store,
      kinds: [],
      discoverKinds: true,
      runs: true,
      limits: true,
      // No onReadError: a scrape the database cannot serve fails (503), so Prometheus marks it down.
    });
  }

  /** Reads the gauges from the database and prints the registry. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** The Content-Type of {@link scrape}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
