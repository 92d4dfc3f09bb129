import { RunState } from '@cyclone/core';
import { ExhaustedReasons, type Client } from '@cyclone/client';
import { Gauge, Registry } from 'prom-client';

/**
 * The engine's gauges in Prometheus form, computed from the database at scrape time: nothing is
 * counted in this process, so every replica of the server reports the same numbers and a restart
 * loses nothing.
 */
export class EngineMetrics {
  /** The registry `/metrics` prints: the one given, or the server's own. */
  readonly registry: Registry;
  private readonly runs: Gauge<'state'>;
  private readonly dlq: Gauge<'reason'>;
  private readonly depth: Gauge<'kind'>;
  private readonly ready: Gauge<'kind'>;
  private readonly oldest: Gauge<'kind'>;
  /** Scrapes one at a time: each resets the gauges, and two interleaved would mix their numbers. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: Client,
    registry?: Registry,
  ) {
    this.registry = registry ?? new Registry();
    const registers = [this.registry];
    this.runs = new Gauge({
      name: 'cyclone_runs',
      help: 'Runs by state.',
      labelNames: ['state'],
      registers,
    });
    this.dlq = new Gauge({
      name: 'cyclone_dlq_steps',
      help: 'Discarded steps (the DLQ) by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.depth = new Gauge({
      name: 'cyclone_queue_depth',
      help: 'Available steps by handler kind, including those waiting out a backoff or a delay.',
      labelNames: ['kind'],
      registers,
    });
    this.ready = new Gauge({
      name: 'cyclone_queue_ready',
      help: 'Available steps by handler kind whose time has come: claimable now.',
      labelNames: ['kind'],
      registers,
    });
    this.oldest = new Gauge({
      name: 'cyclone_queue_oldest_available_age_seconds',
      help: 'How long the oldest claimable step of each kind has waited past its scheduled time.',
      labelNames: ['kind'],
      registers,
    });
  }

  /** Reads the gauges from the database and prints the registry. */
  scrape(): Promise<string> {
    const next = this.queue.then(() => this.scrapeNow());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async scrapeNow(): Promise<string> {
    const gauges = await this.client.store.engineGauges();
    // Reset first, so a kind whose queue emptied disappears instead of keeping its last value.
    for (const gauge of [this.runs, this.dlq, this.depth, this.ready, this.oldest]) gauge.reset();
    // Every state and reason is reported, zero included, so alerts need no `absent()`.
    for (const state of Object.values(RunState)) this.runs.set({ state }, 0);
    for (const reason of ExhaustedReasons) this.dlq.set({ reason }, 0);
    for (const { state, count } of gauges.runs) this.runs.set({ state }, count);
    for (const { reason, count } of gauges.exhausted) this.dlq.set({ reason }, count);
    for (const queue of gauges.queues) {
      this.depth.set({ kind: queue.kind }, queue.depth);
      this.ready.set({ kind: queue.kind }, queue.ready);
      this.oldest.set({ kind: queue.kind }, queue.oldestReadySeconds);
    }
    return this.registry.metrics();
  }

  /** The Content-Type of {@link scrape}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
