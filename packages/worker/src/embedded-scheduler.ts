import type { Logger } from 'pino';
import { Scheduler, type MetricsRegistry } from '@cyclone/scheduler';
import type { WorkerOptions } from './options.js';

/**
 * The scheduler a worker runs in its own process with `scheduler: true` (single-process
 * deployments, `cyclone dev`): the same scanners and leader election as a standalone scheduler,
 * on its own small pool, so several such workers still have one leader between them. Its metrics
 * (the leader gauge) go into the worker's registry, so `worker.metrics()` serves them too.
 */
export function embeddedScheduler(
  options: WorkerOptions,
  logger: Logger,
  metricsRegistry: MetricsRegistry | undefined,
): Scheduler | undefined {
  if (!options.scheduler) return undefined;
  const settings = options.scheduler === true ? {} : options.scheduler;
  return new Scheduler({
    ...(options.pool ? { pool: options.pool } : {}),
    ...(options.connectionString ? { connectionString: options.connectionString } : {}),
    ...(options.schema ? { schema: options.schema } : {}),
    ...(options.pooler ? { pooler: options.pooler } : {}),
    ...(options.listenConnectionString
      ? { listenConnectionString: options.listenConnectionString }
      : {}),
    ...(options.workflows ? { workflows: options.workflows } : {}),
    ...(settings.interval === undefined ? {} : { interval: settings.interval }),
    ...(options.retention === undefined ? {} : { retention: options.retention }),
    ...(metricsRegistry ? { metricsRegistry } : {}),
    logger: logger.child({ component: 'scheduler' }),
  });
}
