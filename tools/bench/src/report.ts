/**
 * The report: medians over rounds, each figure's ratio to the best peer, as a text table, JSON and
 * Markdown.
 */
import { systemMeta } from './systems/meta.js';
import { boundBatch, throughputId, type Variant } from './plan.js';
import { flowKindCap, type ConfigName, type SystemName } from './shared/types.js';

/** One figure of one round. */
export interface Measurement {
  readonly round: number;
  readonly system: SystemName;
  readonly config: ConfigName;
  readonly variant: string;
  readonly value: number;
  readonly unit: string;
  readonly extra: Readonly<Record<string, number | string | boolean>>;
}

export interface Column {
  readonly key: string;
  readonly label: string;
  readonly system: SystemName;
  readonly config: ConfigName;
}

export interface Cell {
  readonly median: number;
  readonly values: readonly number[];
  /** median / best peer median (for latency and memory, lower is better). */
  readonly ratio: number | null;
  /** Some round hit the time cap: the figure is what completed by then, per second. */
  readonly capped: boolean;
}

export interface Row {
  readonly id: string;
  readonly label: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly cells: Readonly<Record<string, Cell | undefined>>;
}

export interface Table {
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
}

export function columnsFor(systems: readonly SystemName[]): Column[] {
  return systems.flatMap((system) =>
    systemMeta[system].configs.map((config) => ({
      key: `${system}:${config}`,
      label: systemMeta[system].configs.length === 1 ? system : `${system} (${config})`,
      system,
      config,
    })),
  );
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface RowSpec {
  readonly id: string;
  readonly variant: string;
  readonly label: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  /** A figure only some runs can take (the server's CPU): no row when no system has it. */
  readonly optional?: boolean;
  readonly pick: (m: Measurement) => number | undefined;
}

function num(m: Measurement, key: string): number | undefined {
  const v = m.extra[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * CPU time a completed job cost, in µs: the sum of a drain's `keys` (ms) over its jobs. The
 * server's part is there only when the server runs on the bench's machine.
 */
function cpuPerJob(m: Measurement, keys: readonly string[]): number | undefined {
  const done = num(m, 'done');
  if (!done) return undefined;
  let ms = 0;
  for (const key of keys) {
    const part = num(m, key);
    if (part === undefined) return undefined;
    ms += part;
  }
  return (ms * 1000) / done;
}

const flowLabels: Readonly<Record<string, string>> = {
  'kind-cap': `a per-kind cap of ${flowKindCap.toLocaleString('en-US')} (never binds)`,
  'key-cap': 'a per-key cap of 1 over 10,000 keys, one job each (never binds)',
  priority: 'priorities -3..3, no limit',
  'fair-10': 'fair share over 10 keys',
  'fair-10k': 'fair share over 10,000 keys',
};

function rowSpecs(variants: readonly Variant[], depthRows: number): RowSpec[] {
  const specs: RowSpec[] = [];
  const value = (m: Measurement) => m.value;
  for (const v of variants) {
    switch (v.measure) {
      case 'enqueue':
        specs.push({
          id: v.id,
          variant: v.id,
          label: `bulk enqueue, ${fmtInt(v.n)} jobs`,
          unit: 'jobs/s',
          better: 'higher',
          pick: value,
        });
        break;
      case 'throughput':
        specs.push({
          id: v.id,
          variant: v.id,
          label: `throughput, c=${v.concurrency}, ${fmtInt(v.n)} jobs`,
          unit: 'jobs/s',
          better: 'higher',
          pick: value,
        });
        // Worker and server share the machine's cores: their CPU a job together bounds the rate.
        specs.push({
          id: `${v.id}-cpu`,
          variant: v.id,
          label: `CPU per job, c=${v.concurrency}, ${fmtInt(v.n)} jobs: worker process + server (user + system)`,
          unit: 'µs',
          better: 'lower',
          optional: true,
          pick: (m) => cpuPerJob(m, ['cpuMs', 'serverCpuMs']),
        });
        specs.push({
          id: `${v.id}-cpu-server`,
          variant: v.id,
          label: `CPU per job, c=${v.concurrency}, ${fmtInt(v.n)} jobs: the server's part`,
          unit: 'µs',
          better: 'lower',
          optional: true,
          pick: (m) => cpuPerJob(m, ['serverCpuMs']),
        });
        break;
      case 'bound':
        specs.push({
          id: v.id,
          variant: v.id,
          label: `SQL bound: own claim + completion through pgbench, batches of ${String(boundBatch)}, ${String(v.concurrency)} clients, ${fmtInt(v.n)} jobs`,
          unit: 'jobs/s',
          better: 'higher',
          pick: value,
        });
        break;
      case 'latency':
        for (const p of ['p50', 'p95', 'p99'] as const) {
          specs.push({
            id: `latency-${p}`,
            variant: v.id,
            label: `latency ${p}, enqueue -> start`,
            unit: 'ms',
            better: 'lower',
            pick: (m) => num(m, p),
          });
        }
        for (const [part, label] of [
          ['enqueueP50', 'the enqueue call (its commit included)'],
          ['pickupP50', 'from its return to the start (wake-up, claim, dispatch)'],
        ] as const) {
          specs.push({
            id: `latency-${part}`,
            variant: v.id,
            label: `latency p50, ${label}`,
            unit: 'ms',
            better: 'lower',
            pick: (m) => num(m, part),
          });
        }
        break;
      case 'workflow':
        specs.push({
          id: v.id,
          variant: v.id,
          label:
            v.shape === 'chain'
              ? `workflow chain a->b->c, ${fmtInt(v.n)} runs, c=${v.concurrency}`
              : `workflow diamond 1->8->1, ${fmtInt(v.n)} runs, c=${v.concurrency}`,
          unit: 'steps/s',
          better: 'higher',
          pick: value,
        });
        break;
      case 'depth':
        specs.push({
          id: v.id,
          variant: v.id,
          label: `depth: throughput over ${fmtInt(depthRows)} finished rows, c=${v.concurrency}`,
          unit: 'jobs/s',
          better: 'higher',
          pick: value,
        });
        break;
      case 'memory':
        specs.push({
          id: 'memory-peak',
          variant: v.id,
          label: `worker peak RSS, c=${v.concurrency}, ${fmtInt(v.n)} jobs`,
          unit: 'MB',
          better: 'lower',
          pick: (m) => num(m, 'peakRssMb'),
        });
        specs.push({
          id: 'memory-start',
          variant: v.id,
          label: 'worker RSS before start (same process)',
          unit: 'MB',
          better: 'lower',
          pick: (m) => num(m, 'baselineRssMb'),
        });
        break;
      case 'fanout':
        specs.push({
          id: `${v.id}-item`,
          variant: v.id,
          label: `fan-out, ${fmtInt(v.n)} items, ${v.maxParallel === undefined ? 'no limit' : `maxParallel ${String(v.maxParallel)}`}, c=${v.concurrency}: ms per item`,
          unit: 'ms',
          better: 'lower',
          pick: value,
        });
        specs.push({
          id: `${v.id}-ratio`,
          variant: v.id,
          label: `fan-out${v.maxParallel === undefined ? '' : ` (maxParallel ${String(v.maxParallel)})`}: time per item / plain-job time per item (same worker)`,
          unit: 'x',
          better: 'lower',
          pick: (m) => num(m, 'ratio'),
        });
        break;
      case 'flow':
        if (v.flow === 'plan') {
          specs.push({
            id: 'flow-plan-limited',
            variant: v.id,
            label: `flow plan: claim of 50 at ${fmtInt(v.n)} available steps, per-key cap over 10,000 keys + rate limit + priorities (EXPLAIN ANALYZE)`,
            unit: 'ms',
            better: 'lower',
            pick: (m) => num(m, 'limitedMs'),
          });
          specs.push({
            id: 'flow-plan-unlimited',
            variant: v.id,
            label: `flow plan: claim of 50 of an unlimited kind beside them (EXPLAIN ANALYZE)`,
            unit: 'ms',
            better: 'lower',
            pick: (m) => num(m, 'unlimitedMs'),
          });
          specs.push({
            id: 'flow-plan-fair',
            variant: v.id,
            label: `flow plan: claim of 50 of the same kind under fair share, limits kept (EXPLAIN ANALYZE)`,
            unit: 'ms',
            better: 'lower',
            pick: (m) => num(m, 'fairMs'),
          });
          specs.push({
            id: 'flow-plan-fair-rows',
            variant: v.id,
            label: `flow plan: rows of cyclone_steps the fair claim read (of ${fmtInt(v.n)} claimable)`,
            unit: 'rows',
            better: 'lower',
            pick: (m) => num(m, 'fairStepRowsRead'),
          });
          break;
        }
        specs.push({
          id: `${v.id}-ratio`,
          variant: v.id,
          label: `flow: ${flowLabels[v.flow ?? 'kind-cap']}, c=${v.concurrency}, ${fmtInt(v.n)} jobs: rate / the same worker's rate without limits`,
          unit: 'x',
          better: 'higher',
          pick: value,
        });
        specs.push({
          id: `${v.id}-rate`,
          variant: v.id,
          label: `flow: ${flowLabels[v.flow ?? 'kind-cap']}: jobs/s`,
          unit: 'jobs/s',
          better: 'higher',
          pick: (m) => num(m, 'limitedRate'),
        });
        break;
    }
  }
  return specs;
}

export function buildTable(
  systems: readonly SystemName[],
  variants: readonly Variant[],
  measurements: readonly Measurement[],
  depthRows: number,
): Table {
  const columns = columnsFor(systems);
  const rows: Row[] = [];
  for (const spec of rowSpecs(variants, depthRows)) {
    const cells: Record<string, Cell | undefined> = {};
    const medians: Record<string, { median: number; values: number[]; capped: boolean }> = {};
    for (const column of columns) {
      const ms = measurements.filter(
        (m) =>
          m.variant === spec.variant && m.system === column.system && m.config === column.config,
      );
      const values = ms
        .map(spec.pick)
        .filter((x): x is number => x !== undefined && Number.isFinite(x));
      if (values.length === 0) continue;
      // A cap cuts a rate or the number of latency samples; a memory peak stays what it was.
      medians[column.key] = {
        median: median(values),
        values,
        capped: spec.unit !== 'MB' && ms.some((m) => m.extra.capped === true),
      };
    }
    if (spec.optional && Object.keys(medians).length === 0) continue;
    const best = bestPeer(columns, medians, spec.better);
    for (const [key, m] of Object.entries(medians)) {
      cells[key] = { ...m, ratio: best === undefined || best === 0 ? null : m.median / best };
    }
    rows.push({ id: spec.id, label: spec.label, unit: spec.unit, better: spec.better, cells });
    if (spec.id === 'depth') rows.push(retainedRow(columns, rows, cells, variants));
  }
  const bound = rows.find((r) => r.id === 'sql-bound');
  if (bound) {
    // The rows of 10,000 queued jobs only (`throughput-c50`, not `throughput-c50-40k`).
    const shares = rows
      .filter((r) => /^throughput-c\d+$/.test(r.id))
      .map((throughput) => shareOfBoundRow(columns, throughput, bound));
    rows.splice(rows.indexOf(bound) + 1, 0, ...shares);
  }
  return { columns, rows };
}

/**
 * A throughput figure as a share of the same system's SQL bound: how much of what its own
 * statements allow the system reaches end to end. A system's configurations share its one bound.
 */
function shareOfBoundRow(columns: readonly Column[], throughput: Row, bound: Row): Row {
  const boundOf = (system: SystemName) =>
    Object.entries(bound.cells).find(([key, cell]) => key.startsWith(`${system}:`) && cell)?.[1];
  const medians: Record<string, { median: number; values: number[]; capped: boolean }> = {};
  for (const column of columns) {
    const t = throughput.cells[column.key];
    const b = boundOf(column.system);
    if (!t || !b || b.median === 0) continue;
    medians[column.key] = { median: t.median / b.median, values: [], capped: t.capped };
  }
  const best = bestPeer(columns, medians, 'higher');
  const cells: Record<string, Cell | undefined> = {};
  for (const [key, m] of Object.entries(medians)) {
    cells[key] = { ...m, ratio: best === undefined || best === 0 ? null : m.median / best };
  }
  return {
    id: `${throughput.id}-of-bound`,
    label: `${throughput.label}: share of the system's own SQL bound`,
    unit: 'ratio',
    better: 'higher',
    cells,
  };
}

/** Depth throughput as a share of the empty-database throughput at the same concurrency. */
function retainedRow(
  columns: readonly Column[],
  rows: readonly Row[],
  depth: Record<string, Cell | undefined>,
  variants: readonly Variant[],
): Row {
  const concurrency = variants.find((v) => v.measure === 'depth')?.concurrency;
  const empty =
    concurrency === undefined ? undefined : rows.find((r) => r.id === throughputId(concurrency));
  const medians: Record<string, { median: number; values: number[]; capped: boolean }> = {};
  for (const column of columns) {
    const d = depth[column.key];
    const e = empty?.cells[column.key];
    if (!d || !e || e.median === 0) continue;
    medians[column.key] = { median: d.median / e.median, values: [], capped: d.capped || e.capped };
  }
  const best = bestPeer(columns, medians, 'higher');
  const cells: Record<string, Cell | undefined> = {};
  for (const [key, m] of Object.entries(medians)) {
    cells[key] = { ...m, ratio: best === undefined || best === 0 ? null : m.median / best };
  }
  return {
    id: 'depth-retained',
    label: `depth: share of the empty-database figure (c=${concurrency})`,
    unit: 'ratio',
    better: 'higher',
    cells,
  };
}

function bestPeer(
  columns: readonly Column[],
  medians: Readonly<Record<string, { median: number }>>,
  better: 'higher' | 'lower',
): number | undefined {
  const peers = columns
    .filter((c) => c.system !== 'cyclone')
    .map((c) => medians[c.key]?.median)
    .filter((x): x is number => x !== undefined);
  if (peers.length === 0) return undefined;
  return better === 'higher' ? Math.max(...peers) : Math.min(...peers);
}

function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (unit === 'ratio') return value.toFixed(2);
  if (unit === 'ms') return value >= 100 ? fmtInt(value) : value.toFixed(1);
  if (unit === 'MB') return value.toFixed(0);
  return value >= 100 ? fmtInt(value) : value.toFixed(1);
}

function formatCell(cell: Cell | undefined, unit: string): string {
  if (!cell) return '-';
  const ratio = cell.ratio === null ? '' : ` (${cell.ratio.toFixed(2)}x)`;
  return `${formatValue(cell.median, unit)}${cell.capped ? '*' : ''}${ratio}`;
}

function rowLabel(row: Row): string {
  return `${row.label} [${row.unit}, ${row.better} is better]`;
}

/** The table for a terminal: fixed-width columns. */
export function textTable(table: Table): string {
  const header = ['measurement', ...table.columns.map((c) => c.label)];
  const body = table.rows.map((row) => [
    rowLabel(row),
    ...table.columns.map((c) => formatCell(row.cells[c.key], row.unit)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The same table in Markdown. */
export function markdownTable(table: Table): string {
  const header = `| measurement | ${table.columns.map((c) => c.label).join(' | ')} |`;
  const rule = `| --- | ${table.columns.map(() => '---:').join(' | ')} |`;
  const body = table.rows.map(
    (row) =>
      `| ${rowLabel(row)} | ${table.columns.map((c) => formatCell(row.cells[c.key], row.unit)).join(' | ')} |`,
  );
  return [header, rule, ...body].join('\n');
}

export const legend =
  'Each cell: the median over rounds, then (in brackets) its ratio to the best peer in that row ' +
  '(median / best peer median; for latency, memory and CPU lower is better, so a ratio below 1 beats the best peer). ' +
  '`*`: a time cap stopped the clock in some round; the figure is what completed by then, per second. ' +
  '`-`: not measured (a peer without that workflow shape, or a configuration not run for that measurement).';
