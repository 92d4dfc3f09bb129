import { describe, expect, it } from 'vitest';
import type { Row, Table } from './report.js';
import { checkTargets } from './targets.js';

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
      { target: 'throughput c=50 vs the best peer', figure: '1.20x', goal: '>= 0.9x', met: true },
      {
        target: 'CPU per job (c=50) vs the best peer',
        figure: '1.35x',
        goal: '<= 1.3x',
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
      row('throughput-c10', 9_000, 0.899),
      row('throughput-c50', 10_000, 0.9),
      row('latency-p99', 5.04),
      row('workflow-diamond', 6_980),
      row('memory-peak', 149.6),
    );
    expect(checkTargets(table).map((t) => [t.figure, t.met])).toEqual([
      ['0.89x', false],
      ['0.90x', true],
      ['5.1 ms', false],
      ['69 %', false],
      ['150 MB', true],
    ]);
  });
});
