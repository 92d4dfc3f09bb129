/**
 * One measurement in a fresh Node process:
 *
 *   runner.ts <system> <task> <n> --url URL [--pool-size 10] [--concurrency C] [--config default|fast]
 *             [--shape chain|diamond] [--cap-ms MS] [--depth-rows R] [--max-parallel N]
 *             [--pooler transaction] [--listen-url URL] [--poll-interval D]   (cyclone only)
 *
 * Tasks: `enqueue` (time a bulk enqueue of n jobs), `prepare` (enqueue n jobs, or submit n runs of
 * --shape, untimed), `fill` (the depth template: R finished rows), `drain` (start a worker and time
 * it over the n jobs or runs already there), `prepare-drain` (both in one process: quick mode),
 * `latency` (n jobs one at a time to an idle worker), `fan-out` (Cyclone: one fan-out run of n
 * items, limited to --max-parallel at once when given, against n plain jobs), `sql-bound` (n jobs through the system's own claim and completion
 * statements replayed by pgbench, --concurrency clients: see measurements/sql-bound.ts).
 * Prints one JSON line, `{"bench":1,...}`, and exits.
 */
import { parseArgs } from 'node:util';
import { drain } from './measurements/drain.js';
import { bulkEnqueue } from './measurements/enqueue.js';
import { canFanOut, fanOut } from './measurements/fan-out.js';
import { latency } from './measurements/latency.js';
import { sqlBound } from './measurements/sql-bound.js';
import { boundBatch } from './plan.js';
import { flowCost, flowPlan } from './measurements/flow.js';
import { prepareDepthTemplate } from './measurements/depth.js';
import { createAdapter } from './systems/index.js';
import {
  flowModes,
  stepsPerRun,
  systemNames,
  type ConfigName,
  type FlowMode,
  type RunnerResult,
  type SystemName,
  type WorkflowShape,
} from './shared/types.js';

const runnerTasks = [
  'enqueue',
  'prepare',
  'fill',
  'drain',
  'prepare-drain',
  'latency',
  'fan-out',
  'sql-bound',
  'flow',
  'flow-plan',
] as const;
type RunnerTask = (typeof runnerTasks)[number];

async function main(): Promise<RunnerResult> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'pool-size': { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '10' },
      config: { type: 'string', default: 'default' },
      shape: { type: 'string' },
      'cap-ms': { type: 'string', default: '60000' },
      'depth-rows': { type: 'string', default: '0' },
      'max-parallel': { type: 'string' },
      pooler: { type: 'string' },
      'listen-url': { type: 'string' },
      'poll-interval': { type: 'string' },
      flow: { type: 'string' },
      'limited-first': { type: 'boolean', default: false },
    },
  });
  const [systemArg, taskArg, nArg] = positionals;
  if (!systemNames.includes(systemArg as SystemName))
    throw new Error(`unknown system "${systemArg}"`);
  if (!runnerTasks.includes(taskArg as RunnerTask)) throw new Error(`unknown task "${taskArg}"`);
  if (!values.url) throw new Error('--url is required');
  const system = systemArg as SystemName;
  const task = taskArg as RunnerTask;
  const n = Number(nArg ?? 0);
  const config = values.config as ConfigName;
  const concurrency = Number(values.concurrency);
  const shape = values.shape as WorkflowShape | undefined;
  const capMs = Number(values['cap-ms']);
  if (values.pooler !== undefined && values.pooler !== 'transaction')
    throw new Error(`--pooler expects transaction, got "${values.pooler}"`);
  const adapter = await createAdapter(system, values.url, Number(values['pool-size']), {
    ...(values.pooler ? { pooler: 'transaction' as const } : {}),
    ...(values['listen-url'] ? { listenUrl: values['listen-url'] } : {}),
    ...(values['poll-interval'] ? { pollInterval: values['poll-interval'] } : {}),
  });
  const base = { bench: 1 as const, ok: true, system, measure: task, config };
  const configuration = adapter.describe(config, concurrency);
  try {
    switch (task) {
      case 'enqueue': {
        await adapter.setup();
        const r = await bulkEnqueue(adapter, n);
        return {
          ...base,
          value: r.rate,
          unit: 'jobs/s',
          extra: { seconds: r.seconds, configuration },
        };
      }
      case 'prepare': {
        await adapter.setup();
        if (shape) await adapter.submitWorkflows(shape, n);
        else await adapter.bulkEnqueue(n);
        return base;
      }
      case 'fill': {
        const r = await prepareDepthTemplate(adapter, values.url, Number(values['depth-rows']));
        return { ...base, value: r.seconds, unit: 's' };
      }
      case 'drain':
      case 'prepare-drain': {
        if (task === 'prepare-drain') {
          await adapter.setup();
          if (shape) await adapter.submitWorkflows(shape, n);
          else await adapter.bulkEnqueue(n);
        }
        const r = await drain(adapter, {
          n,
          capMs,
          worker: { concurrency, config },
          ...(shape ? { shape } : {}),
        });
        const perUnit = shape ? stepsPerRun[shape] : 1;
        return {
          ...base,
          value: r.rate * perUnit,
          unit: shape ? 'steps/s' : 'jobs/s',
          extra: {
            done: r.done,
            seconds: r.seconds,
            capped: r.capped,
            startMs: r.startMs,
            baselineRssMb: r.baselineRssMb,
            peakRssMb: r.peakRssMb,
            cpuMs: r.cpuMs,
            configuration,
          },
        };
      }
      case 'fan-out': {
        if (!canFanOut(adapter)) throw new Error(`${system} has no fan-out measurement`);
        await adapter.setup();
        const maxParallel =
          values['max-parallel'] === undefined ? undefined : Number(values['max-parallel']);
        const r = await fanOut(adapter, { n, maxParallel, concurrency, capMs });
        return {
          ...base,
          value: r.fanOutMsPerItem,
          unit: 'ms',
          extra: {
            ratio: r.ratio,
            jobMsPerItem: r.jobMsPerItem,
            highestRunning: r.highestRunning,
            maxParallel: maxParallel ?? 'none',
            capped: !r.completed,
            configuration,
          },
        };
      }
      case 'sql-bound': {
        const r = await sqlBound(adapter, values.url, {
          n,
          batch: boundBatch,
          clients: concurrency,
          config,
        });
        return {
          ...base,
          value: r.rate,
          unit: 'jobs/s',
          extra: {
            done: r.done,
            seconds: r.seconds,
            batch: boundBatch,
            clients: concurrency,
            configuration: `${system}'s own claim and completion statements through pgbench`,
          },
        };
      }
      case 'flow': {
        if (system !== 'cyclone') throw new Error('the flow measurements are Cyclone only');
        const mode = values.flow as FlowMode;
        if (!flowModes.includes(mode))
          throw new Error(`--flow expects one of ${flowModes.join(', ')}`);
        const r = await flowCost(values.url, Number(values['pool-size']), {
          mode,
          n,
          concurrency,
          capMs,
          limitedFirst: values['limited-first'] === true,
        });
        return {
          ...base,
          value: r.ratio,
          unit: 'x',
          extra: {
            plainRate: r.plainRate,
            limitedRate: r.limitedRate,
            limitedFirst: values['limited-first'] === true,
            capped: r.capped,
            configuration,
          },
        };
      }
      case 'flow-plan': {
        if (system !== 'cyclone') throw new Error('the flow measurements are Cyclone only');
        const r = await flowPlan(values.url, n);
        return {
          ...base,
          value: r.limited.executionMs,
          unit: 'ms',
          extra: {
            limitedMs: r.limited.executionMs,
            limitedBuffers: r.limited.sharedBuffers,
            limitedSeqScans: r.limited.seqScans.join(',') || 'none',
            limitedIndexes: r.limited.indexes.join(','),
            unlimitedMs: r.unlimited.executionMs,
            unlimitedBuffers: r.unlimited.sharedBuffers,
            unlimitedSeqScans: r.unlimited.seqScans.join(',') || 'none',
            unlimitedIndexes: r.unlimited.indexes.join(','),
            fairMs: r.fair.executionMs,
            fairBuffers: r.fair.sharedBuffers,
            fairSeqScans: r.fair.seqScans.join(',') || 'none',
            fairIndexes: r.fair.indexes.join(','),
            fairClaimed: r.fairClaimed,
            fairStepRowsRead: r.fairStepRowsRead,
            fillSeconds: r.fillSeconds,
          },
        };
      }
      case 'latency': {
        await adapter.setup();
        const r = await latency(adapter, { n, capMs, worker: { concurrency, config } });
        return {
          ...base,
          value: r.p50,
          unit: 'ms',
          extra: {
            samples: r.samples,
            p50: r.p50,
            p95: r.p95,
            p99: r.p99,
            max: r.max,
            capped: r.capped,
            enqueueP50: r.enqueueP50,
            pickupP50: r.pickupP50,
            configuration,
          },
        };
      }
    }
  } finally {
    await adapter.close();
  }
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
  },
  (error: unknown) => {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stdout.write(`${JSON.stringify({ bench: 1, ok: false, error: message })}\n`, () =>
      process.exit(1),
    );
  },
);
