/**
 * `@cyclone/scheduler`: Cyclone's time-driven scanners with one active leader among replicas.
 *
 * @example
 * ```ts
 * import { Scheduler } from '@cyclone/scheduler';
 * const scheduler = new Scheduler({ connectionString: process.env.CYCLONE_DATABASE_URL! });
 * await scheduler.start();
 * process.on('SIGTERM', () => void scheduler.stop());
 * ```
 *
 * @packageDocumentation
 */
export { Scheduler, type SchedulerOptions, type MetricsRegistry } from './scheduler.js';
export type { Scanner } from './scanners/scanner.js';
