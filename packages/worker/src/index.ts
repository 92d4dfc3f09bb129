/**
 * `@cyclone/worker`: executes Cyclone steps with leases, heartbeats and graceful shutdown.
 *
 * @example
 * ```ts
 * import { Worker } from '@cyclone/worker';
 * import { permanent } from '@cyclone/core';
 *
 * const worker = new Worker({
 *   connectionString: process.env.CYCLONE_DATABASE_URL!,
 *   handlers: {
 *     'payments.charge': async (ctx) => {
 *       if (ctx.attempt > 3) throw permanent(new Error('card declined'));
 *       return { charged: true };
 *     },
 *   },
 * });
 * await worker.start();
 * ```
 *
 * @packageDocumentation
 */
export { Worker, ShutdownAbortGraceMs, WorkerRegistrationRefreshMs } from './worker.js';
export { WorkerStartError, StepTimeoutError } from './errors.js';
export type { WorkerOptions, StopOptions } from './options.js';
export type { MetricsRegistry } from '@cyclone/scheduler';
export type { StepContext, Handler, TaskContext, ItemContext } from './step-context.js';
export {
  handlersFor,
  type NodeContext,
  type NodeHandler,
  type NodeHandlers,
  type HandlersByKind,
} from './node-handlers.js';
export type { HandlersOption } from './handler-table.js';
export { jobHandler, type JobHandler } from './job-handler.js';
