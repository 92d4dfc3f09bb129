/** The scheduler of a scenario, run in the test process with short intervals. */
import { pino } from 'pino';
import type { Duration, WorkflowDefinition } from '@cyclone/core';
import { Scheduler } from '@cyclone/scheduler';
import { urlNamed } from './database.js';

/** Options of {@link startScheduler}. */
export interface ScenarioSchedulerOptions {
  /** @defaultValue `'200ms'` */
  readonly interval?: Duration;
  readonly workflows?: readonly WorkflowDefinition[];
  /** The sessions' `application_name`. @defaultValue `'fault-scheduler'` */
  readonly name?: string;
  /** @defaultValue `false` (keep every run) */
  readonly retention?: Duration | false;
  /** The scheduler's `pooler` option. */
  readonly pooler?: 'transaction';
}

/** Starts a scheduler on `url` (no unserved-kind sweep; no retention by default) and returns it. */
export async function startScheduler(
  url: string,
  options: ScenarioSchedulerOptions = {},
): Promise<Scheduler> {
  const scheduler = new Scheduler({
    connectionString: urlNamed(url, options.name ?? 'fault-scheduler'),
    interval: options.interval ?? '200ms',
    workflows: options.workflows ?? [],
    retention: options.retention ?? false,
    unservedKindGrace: false,
    ...(options.pooler ? { pooler: options.pooler } : {}),
    logger: pino({ level: process.env.CYCLONE_TEST_LOG ?? 'silent' }),
  });
  await scheduler.start();
  return scheduler;
}
