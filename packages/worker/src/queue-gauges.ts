import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { QueueMetrics, QueueMetricsReads } from '@cyclone/store-postgres';
import { loggableError } from './log-error.js';
import type { PromClient } from '@cyclone/scheduler/prom-client';

/**
 * The gauges read from the database at scrape time: queue depth and oldest available age for the
 * worker's kinds, and the DLQ's size by reason. prom-client collects the gauges of one scrape
 * concurrently; they share one read (one statement) while it is in flight.
 */
export class QueueGauges {
  private reading: Promise<QueueMetrics | undefined> | undefined;

  constructor(
    prom: PromClient,
    registers: Registry[],
    private readonly store: QueueMetricsReads,
    private readonly kinds: readonly string[],
    private readonly logger: Logger,
  ) {
    const read = () => this.read();
    new prom.Gauge({
      name: 'cyclone_queue_depth',
      help: 'Available steps whose time has come (claimable now), by handler kind; counted up to 100000',
      labelNames: ['kind'],
      registers,
      async collect() {
        const metrics = await read();
        this.reset();
        for (const q of metrics?.queues ?? []) this.set({ kind: q.kind }, q.available);
      },
    });
    new prom.Gauge({
      name: 'cyclone_queue_oldest_age_seconds',
      help: 'Seconds since the oldest claimable step became claimable, by handler kind (0 when none waits)',
      labelNames: ['kind'],
      registers,
      async collect() {
        const metrics = await read();
        this.reset();
        for (const q of metrics?.queues ?? []) this.set({ kind: q.kind }, q.oldestAgeSeconds);
      },
    });
    new prom.Gauge({
      name: 'cyclone_dlq_steps',
      help: 'Discarded steps (the DLQ) by reason (error kind); counted up to 100000',
      labelNames: ['reason'],
      registers,
      async collect() {
        const metrics = await read();
        this.reset();
        for (const e of metrics?.exhausted ?? []) this.set({ reason: e.reason }, e.steps);
      },
    });
  }

  /**
   * One read for the gauges of a scrape. A failed read is logged and leaves the gauges empty for
   * this scrape, so the worker's own counters are still served when the database is not.
   */
  private read(): Promise<QueueMetrics | undefined> {
    return (this.reading ??= this.store
      .collectQueueMetrics({ kinds: this.kinds })
      .catch((error: unknown) => {
        this.logger.warn(
          { error: loggableError(error) },
          'reading the queue gauges failed; this scrape omits them',
        );
        return undefined;
      })
      .finally(() => {
        this.reading = undefined;
      }));
  }
}
