/**
 * The performance targets, checked against one run's table: each with Cyclone's figure,
 * the goal, and whether it was met. Rows a run did not measure are left out.
 */
import type { Row, Table } from './report.js';

/** One target's outcome. */
export interface TargetResult {
  readonly target: string;
  /** Cyclone's figure as the target reads it (a ratio, a share, ms or MB). */
  readonly figure: string;
  readonly goal: string;
  readonly met: boolean;
}

interface TargetSpec {
  readonly target: string;
  readonly goal: string;
  /** The figure the target reads from the table; undefined when a row it needs is missing. */
  readonly read: (rows: ReadonlyMap<string, Row>) => number | undefined;
  readonly met: (figure: number) => boolean;
  readonly format: (figure: number) => string;
}

const cyclone = (row: Row | undefined) => row?.cells['cyclone:default'];
const ratioTo = (id: string) => (rows: ReadonlyMap<string, Row>) =>
  cyclone(rows.get(id))?.ratio ?? undefined;
const medianOf = (id: string) => (rows: ReadonlyMap<string, Row>) => cyclone(rows.get(id))?.median;
/** A workflow's steps/s as a share of Cyclone's own plain-job rate at the same concurrency. */
const shareOfJobRate = (id: string) => (rows: ReadonlyMap<string, Row>) => {
  const steps = cyclone(rows.get(id))?.median;
  const jobs = cyclone(rows.get('throughput-c50'))?.median;
  return steps === undefined || !jobs ? undefined : steps / jobs;
};
const times = (x: number) => `${x.toFixed(2)}x`;
const percent = (x: number) => `${Math.round(x * 100)} %`;

const specs: readonly TargetSpec[] = [
  {
    target: 'bulk enqueue vs the best peer',
    goal: '>= 1.0x',
    read: ratioTo('enqueue'),
    met: (x) => x >= 1,
    format: times,
  },
  // Against graphile-worker's fastest configuration, the best peer here; 1.0x is the stretch.
  ...[10, 50].map((c) => ({
    target: `throughput c=${c} vs the best peer`,
    goal: '>= 0.9x',
    read: ratioTo(`throughput-c${c}`),
    met: (x: number) => x >= 0.9,
    format: times,
  })),
  {
    // Worker and server together, where the server runs on the bench's machine.
    target: 'CPU per job (c=50) vs the best peer',
    goal: '<= 1.3x',
    read: ratioTo('throughput-c50-cpu'),
    met: (x) => x <= 1.3,
    format: times,
  },
  {
    target: "SQL bound vs the best peer's",
    goal: '>= 0.85x',
    read: ratioTo('sql-bound'),
    met: (x) => x >= 0.85,
    format: times,
  },
  {
    target: 'latency p50 vs the best peer',
    goal: '<= 1.0x',
    read: ratioTo('latency-p50'),
    met: (x) => x <= 1,
    format: times,
  },
  {
    target: 'latency p99 (idle worker)',
    goal: '<= 5 ms',
    read: medianOf('latency-p99'),
    met: (x) => x <= 5,
    format: (x) => `${x.toFixed(1)} ms`,
  },
  ...(['chain', 'diamond'] as const).map((shape) => ({
    target: `workflow ${shape}: steps/s as a share of the job rate (c=50)`,
    goal: '>= 70 %',
    read: shareOfJobRate(`workflow-${shape}`),
    met: (x: number) => x >= 0.7,
    format: percent,
  })),
  {
    target: 'depth: share of the empty-database rate',
    goal: '>= 0.80',
    read: medianOf('depth-retained'),
    met: (x) => x >= 0.8,
    format: (x) => x.toFixed(2),
  },
  {
    target: 'fan-out (no limit): time per item / plain job',
    goal: '<= 2.0x',
    read: medianOf('fanout-ratio'),
    met: (x) => x <= 2,
    format: times,
  },
  ...(['kind-cap', 'key-cap', 'priority'] as const).map((mode) => ({
    target: `flow control (${mode}): rate / rate without limits`,
    goal: '>= 0.80',
    read: medianOf(`flow-${mode}-ratio`),
    met: (x: number) => x >= 0.8,
    format: (x: number) => x.toFixed(2),
  })),
  {
    target: 'worker peak RSS, c=100',
    goal: '<= 150 MB',
    read: medianOf('memory-peak'),
    met: (x) => x <= 150,
    format: (x) => `${Math.round(x)} MB`,
  },
];

/** The targets this run measured, each met or not. */
export function checkTargets(table: Table): TargetResult[] {
  const rows = new Map(table.rows.map((r) => [r.id, r]));
  return specs.flatMap((spec) => {
    const figure = spec.read(rows);
    if (figure === undefined || !Number.isFinite(figure)) return [];
    return [
      { target: spec.target, figure: spec.format(figure), goal: spec.goal, met: spec.met(figure) },
    ];
  });
}

/** The targets as lines for a terminal. */
export function targetsText(results: readonly TargetResult[]): string {
  if (results.length === 0) return '';
  const width = Math.max(...results.map((r) => r.target.length));
  const lines = results.map(
    (r) =>
      `${r.target.padEnd(width)}  ${r.figure.padStart(8)}  goal ${r.goal.padEnd(9)}  ${r.met ? 'met' : 'NOT met'}`,
  );
  return ['targets (Cyclone):', ...lines].join('\n');
}

/** The targets as a Markdown table. */
export function targetsMarkdown(results: readonly TargetResult[]): string {
  if (results.length === 0) return '';
  return [
    '| target | Cyclone | goal | met |',
    '| --- | ---: | --- | --- |',
    ...results.map((r) => `| ${r.target} | ${r.figure} | ${r.goal} | ${r.met ? 'yes' : 'no'} |`),
  ].join('\n');
}
