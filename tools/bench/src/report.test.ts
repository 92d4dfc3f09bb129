import { describe, expect, it } from 'vitest';
import { fullSizes, planVariants, quickSizes, type Variant } from './plan.js';
import { buildTable, type Measurement } from './report.js';

const throughput: Variant = {
  id: 'throughput-c50',
  measure: 'throughput',
  concurrency: 50,
  n: 1_000,
  capMs: 60_000,
  configs: ['fast'],
};

const drain = (
  system: Measurement['system'],
  config: Measurement['config'],
  round: number,
  extra: Measurement['extra'],
): Measurement => ({
  round,
  system,
  config,
  variant: throughput.id,
  value: 10_000,
  unit: 'jobs/s',
  extra,
});

describe('buildTable', () => {
  it("gives the CPU a job took, the worker's and the server's, with its ratio to the best peer", () => {
    const table = buildTable(
      ['cyclone', 'graphile-worker'],
      [throughput],
      [
        drain('cyclone', 'default', 1, { done: 1_000, cpuMs: 30, serverCpuMs: 50 }),
        drain('cyclone', 'default', 2, { done: 1_000, cpuMs: 40, serverCpuMs: 60 }),
        drain('graphile-worker', 'fast', 1, { done: 1_000, cpuMs: 30, serverCpuMs: 30 }),
        drain('graphile-worker', 'fast', 2, { done: 1_000, cpuMs: 40, serverCpuMs: 40 }),
      ],
      0,
    );
    const cpu = table.rows.find((r) => r.id === 'throughput-c50-cpu');
    // Medians of (30 + 50, 40 + 60) = 90 µs against (60, 80) = 70 µs.
    expect(cpu?.cells['cyclone:default']?.median).toBe(90);
    expect(cpu?.cells['graphile-worker:fast']?.median).toBe(70);
    expect(cpu?.cells['cyclone:default']?.ratio).toBeCloseTo(90 / 70);
    const server = table.rows.find((r) => r.id === 'throughput-c50-cpu-server');
    expect(server?.cells['cyclone:default']?.median).toBe(55);
  });

  it('leaves the CPU rows out when the server was not on the same machine', () => {
    const table = buildTable(
      ['cyclone'],
      [throughput],
      [drain('cyclone', 'default', 1, { done: 1_000, cpuMs: 30 })],
      0,
    );
    expect(table.rows.map((r) => r.id)).toEqual(['throughput-c50']);
  });

  it('keeps the drains of 40,000 queued jobs apart from those of 10,000', () => {
    const variants = planVariants(fullSizes, ['throughput', 'bound', 'depth'], false);
    expect(variants.filter((v) => v.measure === 'throughput').map((v) => [v.id, v.n])).toEqual([
      ['throughput-c10', 10_000],
      ['throughput-c50', 10_000],
      ['throughput-c10-40k', 40_000],
      ['throughput-c50-40k', 40_000],
    ]);
    const rate = (variant: string, value: number): Measurement => ({
      round: 1,
      system: 'cyclone',
      config: 'default',
      variant,
      value,
      unit: 'jobs/s',
      extra: { done: 1_000, cpuMs: 30, serverCpuMs: 50 },
    });
    const table = buildTable(
      ['cyclone'],
      variants,
      [
        rate('throughput-c10', 1_000),
        rate('throughput-c50', 2_000),
        rate('throughput-c10-40k', 3_000),
        rate('throughput-c50-40k', 4_000),
        rate('sql-bound', 8_000),
        rate('depth', 1_000),
      ],
      1_000_000,
    );
    const labels = table.rows.map((r) => r.label);
    expect(new Set(labels).size).toBe(labels.length);
    const median = (id: string) =>
      table.rows.find((r) => r.id === id)?.cells['cyclone:default']?.median;
    expect(median('throughput-c50-40k')).toBe(4_000);
    expect(median('throughput-c50-40k-cpu')).toBe(80);
    // The depth figure is read against 10,000 queued at c=50; the SQL bound's shares likewise.
    expect(median('depth-retained')).toBe(0.5);
    expect(table.rows.filter((r) => r.id.endsWith('-of-bound')).map((r) => r.id)).toEqual([
      'throughput-c10-of-bound',
      'throughput-c50-of-bound',
    ]);
  });

  it('brings only its reference with the depth measurement, and neither concurrency 10 nor the deeper queue in quick mode', () => {
    const ids = (measures: Parameters<typeof planVariants>[1], quick: boolean) =>
      planVariants(quick ? quickSizes : fullSizes, measures, quick).map((v) => v.id);
    expect(ids(['depth'], false)).toEqual(['throughput-c50', 'depth']);
    expect(ids(['throughput'], true)).toEqual(['throughput-c50']);
  });
});
