/** What one bench run measures: the variants of each measurement, their sizes and time caps. */
import { systemMeta } from './systems/meta.js';
import {
  flowModes,
  type ConfigName,
  type FlowMode,
  type MeasureName,
  type SystemName,
  type WorkflowShape,
} from './shared/types.js';

/** One measurement setting, run once per system (and configuration) per round. */
export interface Variant {
  readonly id: string;
  readonly measure: MeasureName;
  /** Concurrency of the worker (unused by `enqueue`). */
  readonly concurrency: number;
  /** Jobs, samples or runs. */
  readonly n: number;
  /** Time cap of the timed part; a capped figure is what completed by then, per second. */
  readonly capMs: number;
  /** Configurations of the peers it runs in (Cyclone has only `default`). */
  readonly configs: readonly ConfigName[];
  readonly shape?: WorkflowShape;
  /** The fan-out measurement's limit of items at once; absent: no limit (the default). */
  readonly maxParallel?: number;
  /** The flow measurement's setting against none, or `plan` for the plan check. */
  readonly flow?: FlowMode | 'plan';
}

export interface Sizes {
  readonly enqueue: number;
  readonly throughput: number;
  /**
   * Jobs queued for the deep throughput rows (`throughput-c10-40k`, `throughput-c50-40k`): the
   * targets hold at 40,000 queued as at 10,000 (issue #48), where a peer's cost a job falls as
   * its queue empties.
   */
  readonly deepThroughput: number;
  readonly latency: number;
  readonly chainRuns: number;
  readonly diamondRuns: number;
  readonly depthRows: number;
  readonly depthJobs: number;
  readonly memoryJobs: number;
  /** Items of the fan-out measurement's list. */
  readonly fanOutItems: number;
  readonly capMs: number;
  readonly latencyCapMs: number;
  /** Jobs the SQL bound drains through pgbench. */
  readonly bound: number;
  /** Jobs of each set of a flow-cost measurement (limited and not). */
  readonly flowJobs: number;
  /**
   * Jobs of each set of the fair-share rows: more than the others', since their drains must
   * outlast a loaded machine's swings to measure the claim (decision 402), and they may spread
   * over their keys several jobs a key where the per-key cap's row needs one.
   */
  readonly fairFlowJobs: number;
  /** Available steps of the flow plan check. */
  readonly flowPlanSteps: number;
}

export const fullSizes: Sizes = {
  enqueue: 20_000,
  throughput: 10_000,
  deepThroughput: 40_000,
  latency: 200,
  chainRuns: 2_000,
  diamondRuns: 1_000,
  depthRows: 1_000_000,
  depthJobs: 10_000,
  memoryJobs: 10_000,
  fanOutItems: 10_000,
  capMs: 10_000,
  latencyCapMs: 12_000,
  bound: 100_000,
  flowJobs: 10_000,
  fairFlowJobs: 40_000,
  flowPlanSteps: 1_000_000,
};

export const quickSizes: Sizes = {
  enqueue: 300,
  throughput: 300,
  deepThroughput: 300,
  latency: 20,
  chainRuns: 40,
  diamondRuns: 20,
  depthRows: 20_000,
  depthJobs: 300,
  memoryJobs: 300,
  fanOutItems: 300,
  capMs: 20_000,
  latencyCapMs: 3_000,
  bound: 2_000,
  flowJobs: 300,
  fairFlowJobs: 300,
  flowPlanSteps: 20_000,
};

const both: readonly ConfigName[] = ['default', 'fast'];
const fastest: readonly ConfigName[] = ['fast'];

/** The id of a throughput variant: `throughput-c50`, and with 40,000 queued `throughput-c50-40k`. */
export const throughputId = (concurrency: number, deep = false): string =>
  `throughput-c${concurrency}${deep ? '-40k' : ''}`;
/** Concurrency of the depth measurement; its empty-database reference is the throughput variant. */
export const depthConcurrency = 50;
export const memoryConcurrency = 100;
/** Worker concurrency and the fan-out node's limit in the fan-out measurement. */
export const fanOutConcurrency = 50;
export const fanOutMaxParallel = 20;
/** The SQL bound's batch (jobs per claim and per completion) and its pgbench clients. */
export const boundBatch = 500;
export const boundClients = 4;
/** Worker concurrency of the flow-cost measurements (a per-kind cap is set at twice it). */
export const flowConcurrency = 50;

export function planVariants(
  sizes: Sizes,
  measures: readonly MeasureName[],
  quick: boolean,
): Variant[] {
  const all: Variant[] = [
    {
      id: 'enqueue',
      measure: 'enqueue',
      concurrency: 0,
      n: sizes.enqueue,
      capMs: 0,
      configs: ['default'],
    },
    // 10,000 queued jobs, then 40,000: the targets hold at both depths (issue #48).
    ...[false, true].flatMap((deep) =>
      [10, 50].map((c): Variant => ({
        id: throughputId(c, deep),
        measure: 'throughput',
        concurrency: c,
        n: deep ? sizes.deepThroughput : sizes.throughput,
        capMs: sizes.capMs,
        configs: both,
      })),
    ),
    {
      id: 'sql-bound',
      measure: 'bound',
      concurrency: boundClients,
      n: sizes.bound,
      capMs: 0,
      configs: fastest,
    },
    {
      id: 'latency',
      measure: 'latency',
      concurrency: 10,
      n: sizes.latency,
      capMs: sizes.latencyCapMs,
      configs: both,
    },
    {
      id: 'workflow-chain',
      measure: 'workflow',
      concurrency: 50,
      n: sizes.chainRuns,
      capMs: sizes.capMs,
      configs: fastest,
      shape: 'chain',
    },
    {
      id: 'workflow-diamond',
      measure: 'workflow',
      concurrency: 50,
      n: sizes.diamondRuns,
      capMs: sizes.capMs,
      configs: fastest,
      shape: 'diamond',
    },
    {
      id: 'depth',
      measure: 'depth',
      concurrency: depthConcurrency,
      n: sizes.depthJobs,
      capMs: sizes.capMs,
      configs: fastest,
    },
    {
      id: 'memory',
      measure: 'memory',
      concurrency: memoryConcurrency,
      n: sizes.memoryJobs,
      capMs: sizes.capMs,
      configs: fastest,
    },
    // A fan-out in its default configuration (no limit: the target), and with a limit, which
    // moves the items on in steps of the limit as they finish.
    {
      id: 'fanout',
      measure: 'fanout',
      concurrency: fanOutConcurrency,
      n: sizes.fanOutItems,
      // A fan-out is timed to its end: its figure means nothing if a cap cut it short.
      capMs: 6 * sizes.capMs,
      configs: ['default'],
    },
    {
      id: 'fanout-limited',
      measure: 'fanout',
      concurrency: fanOutConcurrency,
      n: sizes.fanOutItems,
      capMs: 6 * sizes.capMs,
      configs: ['default'],
      maxParallel: fanOutMaxParallel,
    },
    // Flow control against none, in the same process and database (see measurements/flow.ts).
    ...flowModes.map((mode): Variant => ({
      id: `flow-${mode}`,
      measure: 'flow',
      concurrency: flowConcurrency,
      n: mode === 'fair-10' || mode === 'fair-10k' ? sizes.fairFlowJobs : sizes.flowJobs,
      capMs: 6 * sizes.capMs,
      configs: ['default'],
      flow: mode,
    })),
    {
      id: 'flow-plan',
      measure: 'flow',
      concurrency: 0,
      n: sizes.flowPlanSteps,
      capMs: 0,
      configs: ['default'],
      flow: 'plan',
    },
  ];
  // The depth figure is read against the empty-database throughput at the same concurrency (and
  // 10,000 queued): that one throughput variant comes with the depth measurement.
  const wanted = new Set<MeasureName>(measures);
  const depthReference = throughputId(depthConcurrency);
  const planned = (v: Variant) =>
    wanted.has(v.measure) || (wanted.has('depth') && v.id === depthReference);
  // Quick mode exercises every adapter path once: concurrency 10 adds nothing to 50 there, nor
  // the deeper queue (the same drain of more jobs) to the shallow one.
  const quickSkips = (v: Variant) =>
    v.measure === 'throughput' && (v.concurrency === 10 || v.id !== throughputId(v.concurrency));
  return all.filter((v) => planned(v) && !(quick && quickSkips(v)));
}

/** The configurations a system runs a variant in. */
export function configsFor(system: SystemName, variant: Variant): ConfigName[] {
  if (variant.measure === 'fanout' && !systemMeta[system].fanOut) return [];
  if (variant.measure === 'flow' && !systemMeta[system].flow) return [];
  if (variant.measure === 'bound' && !systemMeta[system].sqlBound) return [];
  if (
    variant.measure === 'workflow' &&
    (!variant.shape || !systemMeta[system].shapes.includes(variant.shape))
  )
    return [];
  const own = systemMeta[system].configs;
  if (own.length === 1) return [own[0]!];
  return variant.configs.filter((c) => own.includes(c));
}
