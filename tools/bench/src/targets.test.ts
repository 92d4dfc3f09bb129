import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Row, Table } from './report.js';
import { checkTargets, targetGoals } from './targets.js';

const row = (id: string, median: number, ratio: number | null = null): Row => ({
  id,
  label: id,
  unit: '',
  better: 'higher',
  cells: { 'cyclone:default': { median, values: [median], ratio, capped: false } },
});

const tableOf = (...rows: Row[]): Table => ({ columns: [], rows });

describe('checkTargets', () => {
  it('reads each target from its rows and says whether it was met', () => {
    const table = tableOf(
      row('throughput-c50', 10_000, 1.2),
      row('throughput-c50-cpu', 90, 1.35),
      row('sql-bound', 20_000, 0.8),
      row('latency-p99', 6),
      row('workflow-chain', 7_500),
      row('memory-peak', 140),
      row('fanout-ratio', 2.4),
      row('fanout-limited-ratio', 1.1),
    );
    expect(checkTargets(table)).toEqual([
      {
        target: 'throughput c=50, 10,000 queued, vs the best peer',
        figure: '1.20x',
        goal: '>= 1.0x',
        met: true,
      },
      {
        target: 'CPU per job (c=50) vs the best peer',
        figure: '1.35x',
        goal: '<= 1.2x',
        met: false,
      },
      { target: "SQL bound vs the best peer's", figure: '0.80x', goal: '>= 0.85x', met: false },
      { target: 'latency p99 (idle worker)', figure: '6.0 ms', goal: '<= 5 ms', met: false },
      {
        target: 'workflow chain: steps/s as a share of the job rate (c=50)',
        figure: '75 %',
        goal: '>= 70 %',
        met: true,
      },
      {
        target: 'fan-out (no limit): time per item / plain job',
        figure: '2.40x',
        goal: '<= 2.0x',
        met: false,
      },
      { target: 'worker peak RSS, c=100', figure: '140 MB', goal: '<= 150 MB', met: true },
    ]);
  });

  it('never shows a missed goal as the goal itself', () => {
    const table = tableOf(
      row('throughput-c10', 9_000, 0.999),
      row('throughput-c50', 10_000, 1.0),
      row('latency-p99', 5.04),
      row('workflow-diamond', 6_980),
      row('memory-peak', 149.6),
    );
    expect(checkTargets(table).map((t) => [t.figure, t.met])).toEqual([
      ['0.99x', false],
      ['1.00x', true],
      ['5.1 ms', false],
      ['69 %', false],
      ['150 MB', true],
    ]);
  });

  it('holds processing at 1.0x of the best peer with 10,000 and with 40,000 jobs queued', () => {
    const table = tableOf(
      row('throughput-c10', 9_000, 1.0),
      row('throughput-c50', 10_000, 0.99),
      row('throughput-c10-40k', 9_500, 1.31),
      row('throughput-c50-40k', 9_800, 0.95),
    );
    expect(checkTargets(table)).toEqual([
      {
        target: 'throughput c=10, 10,000 queued, vs the best peer',
        figure: '1.00x',
        goal: '>= 1.0x',
        met: true,
      },
      {
        target: 'throughput c=50, 10,000 queued, vs the best peer',
        figure: '0.99x',
        goal: '>= 1.0x',
        met: false,
      },
      {
        target: 'throughput c=10, 40,000 queued, vs the best peer',
        figure: '1.31x',
        goal: '>= 1.0x',
        met: true,
      },
      {
        target: 'throughput c=50, 40,000 queued, vs the best peer',
        figure: '0.95x',
        goal: '>= 1.0x',
        met: false,
      },
    ]);
  });

  it('reads the CPU per job of the 10,000-job drain at c=50 against 1.2x', () => {
    const cpu = (ratio: number) =>
      checkTargets(
        tableOf(row('throughput-c50-cpu', 90, ratio), row('throughput-c50-40k-cpu', 80, 0.5)),
      );
    expect(cpu(1.2)).toEqual([
      {
        target: 'CPU per job (c=50) vs the best peer',
        figure: '1.20x',
        goal: '<= 1.2x',
        met: true,
      },
    ]);
    expect(cpu(1.25).map((t) => [t.figure, t.met])).toEqual([['1.25x', false]]);
  });

  it("holds the latency p99 under 5 ms and never above the best peer's", () => {
    const p99 = (ms: number, ratio: number | null) =>
      checkTargets(tableOf(row('latency-p99', ms, ratio))).map((t) => [
        t.target,
        t.figure,
        t.goal,
        t.met,
      ]);
    expect(p99(4.2, 0.9)).toEqual([
      ['latency p99 (idle worker)', '4.2 ms', '<= 5 ms', true],
      ['latency p99 vs the best peer', '0.90x', '<= 1.0x', true],
    ]);
    // Under 5 ms, but above the peer's p99 in the same run.
    expect(p99(4.2, 1.05)).toEqual([
      ['latency p99 (idle worker)', '4.2 ms', '<= 5 ms', true],
      ['latency p99 vs the best peer', '1.05x', '<= 1.0x', false],
    ]);
    // Below the peer's, but over 5 ms.
    expect(p99(9.1, 0.91)).toEqual([
      ['latency p99 (idle worker)', '9.1 ms', '<= 5 ms', false],
      ['latency p99 vs the best peer', '0.91x', '<= 1.0x', true],
    ]);
    // Without a peer in the run, only the 5 ms.
    expect(p99(4.2, null)).toEqual([['latency p99 (idle worker)', '4.2 ms', '<= 5 ms', true]]);
  });

  it('holds a per-kind cap that never binds at 0.8 of the unlimited rate', () => {
    const kindCap = (share: number) =>
      checkTargets(tableOf(row('flow-kind-cap-ratio', share))).map((t) => [
        t.target,
        t.figure,
        t.met,
      ]);
    expect(kindCap(0.8)).toEqual([
      ['flow control (kind-cap): rate / rate without limits', '0.80', true],
    ]);
    expect(kindCap(0.78)).toEqual([
      ['flow control (kind-cap): rate / rate without limits', '0.78', false],
    ]);
  });
});

/**
 * docs/performance.md states the targets' goals in its table of today's figures, a row a target:
 * each row's goal must be the one the bench checks.
 */
describe("the goals of docs/performance.md's figures", () => {
  const documented: Readonly<Record<string, string>> = {
    'bulk enqueue vs graphile-worker': 'bulk enqueue vs the best peer',
    ...Object.fromEntries(
      ['10,000', '40,000'].flatMap((queued) =>
        [10, 50].map((c) => [
          `throughput c=${c}, ${queued} queued, vs graphile-worker (fast configuration)`,
          `throughput c=${c}, ${queued} queued, vs the best peer`,
        ]),
      ),
    ),
    'CPU per job (c=50) vs graphile-worker': 'CPU per job (c=50) vs the best peer',
    "SQL bound (own statements by pgbench) vs graphile-worker's": "SQL bound vs the best peer's",
    'latency p50, idle worker, vs graphile-worker': 'latency p50 vs the best peer',
    'latency p99, idle worker': 'latency p99 (idle worker)',
    'latency p99, idle worker, vs graphile-worker': 'latency p99 vs the best peer',
    'workflow chain: steps/s as a share of the job rate (c=50)':
      'workflow chain: steps/s as a share of the job rate (c=50)',
    'workflow diamond: steps/s as a share of the job rate (c=50)':
      'workflow diamond: steps/s as a share of the job rate (c=50)',
    'fan-out of 10,000 items: time per item / plain job':
      'fan-out (no limit): time per item / plain job',
    'flow control, per-kind cap: rate / rate without limits':
      'flow control (kind-cap): rate / rate without limits',
    'flow control, per-key cap: rate / rate without limits':
      'flow control (key-cap): rate / rate without limits',
    'worker peak RSS, c=100': 'worker peak RSS, c=100',
  };
  const performance = readFileSync(
    new URL('../../../docs/performance.md', import.meta.url),
    'utf8',
  );
  // The first table after the heading: `| measure | run ... | goal |`.
  const lines = performance.slice(performance.indexOf("## Today's figures")).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'));
  const cells = (line: string) =>
    line
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((cell) => cell.trim());
  const header = cells(lines[first]!);
  const rows = lines.slice(first + 2, end).map(cells);
  const goals = new Map(targetGoals().map((t) => [t.target, t.goal]));

  it('names a target of the bench in every row', () => {
    expect(header[0]).toBe('measure');
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.map((r) => r[0]).filter((measure) => !documented[measure!])).toEqual([]);
    expect(Object.values(documented).filter((target) => !goals.has(target))).toEqual([]);
  });

  it("states each target's goal as the bench checks it", () => {
    const column = header.indexOf('goal');
    expect(column).toBeGreaterThan(0);
    expect(
      rows
        .map((r) => [r[0], r[column]])
        .filter(([measure, goal]) => goals.get(documented[measure!] ?? '') !== goal),
    ).toEqual([]);
  });
});
