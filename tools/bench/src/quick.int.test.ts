/**
 * The quick bench as a smoke test: every system's adapter works and produces a number for every
 * measurement it supports. Nothing is asserted about speed. Uses CYCLONE_TEST_DATABASE_URL when
 * set, else an embedded Postgres.
 */
import { describe, expect, it } from 'vitest';
import { runBench, type BenchReport } from './main.js';
import { findPgbench } from './bound/pgbench.js';
import { configsFor, planVariants, quickSizes } from './plan.js';
import { measureNames, systemNames } from './shared/types.js';

describe('bench --quick', () => {
  it('measures every system in every measurement it supports', async () => {
    const lines: string[] = [];
    const report: BenchReport = await runBench({
      quick: true,
      outDir: null,
      log: (line) => lines.push(line),
      ...(process.env.CYCLONE_TEST_DATABASE_URL
        ? { databaseUrl: process.env.CYCLONE_TEST_DATABASE_URL }
        : {}),
    });

    expect(report.failures, lines.join('\n')).toEqual([]);
    // Without pgbench the bench skips the SQL bound (and says so).
    const variants = planVariants(quickSizes, measureNames, true).filter(
      (v) => v.measure !== 'bound' || findPgbench() !== undefined,
    );
    for (const system of systemNames) {
      for (const variant of variants) {
        for (const config of configsFor(system, variant)) {
          const figures = report.measurements.filter(
            (m) => m.system === system && m.variant === variant.id && m.config === config,
          );
          expect(figures, `${system} (${config}) ${variant.id}`).toHaveLength(1);
          const figure = figures[0]!;
          expect(figure.value, `${system} (${config}) ${variant.id}`).toBeGreaterThan(0);
          if (variant.measure === 'latency') {
            for (const p of ['p50', 'p95', 'p99'])
              expect(figure.extra[p], `${system} (${config}) latency ${p}`).toBeGreaterThan(0);
          }
          if (variant.measure === 'memory') expect(figure.extra.peakRssMb).toBeGreaterThan(0);
        }
      }
    }
    // Every row of the table has Cyclone's figure, and a ratio wherever a peer has one too.
    for (const row of report.table.rows) {
      const cyclone = row.cells['cyclone:default'];
      expect(cyclone?.median, row.label).toBeGreaterThan(0);
      const peers = Object.entries(row.cells).filter(
        ([key, cell]) => !key.startsWith('cyclone') && cell,
      );
      if (peers.length > 0) expect(cyclone?.ratio, row.label).toBeGreaterThan(0);
    }
    expect(report.text).toContain('ratio to the best peer');
  });
});
