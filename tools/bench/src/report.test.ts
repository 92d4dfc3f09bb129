import { describe, expect, it } from 'vitest';
import type { Variant } from './plan.js';
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
});
