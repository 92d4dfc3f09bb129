/**
 * The one line each scenario prints, `[faults] <scenario>: key=value ...`, also appended as JSON to
 * `reports/faults/figures.jsonl` so the figures of a run can be collected into the docs.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const figuresFile = path.join(repoRoot, 'reports', 'faults', 'figures.jsonl');

export type Figure = number | string | boolean;

/** Formats a figure: durations given in milliseconds under a `_ms` key print as seconds. */
function format(key: string, value: Figure): string {
  if (typeof value === 'number' && key.endsWith('_ms')) {
    return `${key.slice(0, -3)}=${(value / 1000).toFixed(2)}s`;
  }
  return `${key}=${String(value)}`;
}

/** Prints the scenario's figures on one line and records them. */
export function reportFigures(scenario: string, figures: Record<string, Figure>): void {
  const line = `[faults] ${scenario}: ${Object.entries(figures)
    .map(([key, value]) => format(key, value))
    .join(' ')}`;
  console.log(line);
  try {
    mkdirSync(path.dirname(figuresFile), { recursive: true });
    appendFileSync(
      figuresFile,
      `${JSON.stringify({ at: new Date().toISOString(), scenario, ...figures })}\n`,
    );
  } catch {
    // The printed line is the record; the file is a convenience.
  }
}

/** The `q` quantile (0..1) of `values`, or 0 when there are none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}
