/** What the orchestrator knows of each system without loading it. */
import type { ConfigName, SystemName, WorkflowShape } from '../shared/types.js';

export interface SystemMeta {
  /** The npm package measured (its installed version goes in the report). */
  readonly packageName: string;
  readonly configs: readonly ConfigName[];
  readonly shapes: readonly WorkflowShape[];
  /** Whether the system runs the fan-out measurement (a fan-out node with a parallelism limit). */
  readonly fanOut?: boolean;
  /** Whether the system runs the flow-control measurements (concurrency caps, priorities). */
  readonly flow?: boolean;
  /** Whether the bench replays the system's claim and completion through pgbench (the SQL bound). */
  readonly sqlBound?: boolean;
}

export const systemMeta: Readonly<Record<SystemName, SystemMeta>> = {
  cyclone: {
    packageName: '@cyclone/worker',
    configs: ['default'],
    shapes: ['chain', 'diamond'],
    fanOut: true,
    flow: true,
    sqlBound: true,
  },
  'graphile-worker': {
    packageName: 'graphile-worker',
    configs: ['default', 'fast'],
    shapes: ['chain'],
    sqlBound: true,
  },
  'pg-boss': { packageName: 'pg-boss', configs: ['default', 'fast'], shapes: ['chain'] },
  dbos: {
    packageName: '@dbos-inc/dbos-sdk',
    configs: ['default', 'fast'],
    shapes: ['chain', 'diamond'],
  },
};
