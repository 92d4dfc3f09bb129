#!/usr/bin/env node
// Checks every import of the workspace packages against the rules of .dependency-cruiser.mjs
// (folder cycles, imports of a sibling package's internals, per-package layers) with
// dependency-cruiser, prints the violations, and exits 1 when there is any.
//
// dependency-cruiser reports a cycle between folders as the folders around it; this script adds,
// for each step of such a cycle, one import that makes it, so every failure names an import.
//
// Run by `npm run check:imports`, which `npm test` runs. Usage: node scripts/check-imports.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, format } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);

const options = await extractDepcruiseOptions('./.dependency-cruiser.mjs');
const { output: result } = await cruise(['packages', 'tools'], { ...options, outputType: 'json' });
const cruised = typeof result === 'string' ? JSON.parse(result) : result;
const report = await format(cruised, { outputType: 'err' });
process.stdout.write(report.output);

/** One import from a file in `from` (or a folder inside it) to a file directly in `to`. */
function importBetween(from, to) {
  for (const module of cruised.modules) {
    if (!module.source.startsWith(`${from}/`)) continue;
    const dependency = module.dependencies.find((d) => path.posix.dirname(d.resolved) === to);
    if (dependency) return `${module.source} → ${dependency.resolved}`;
  }
  return `${from} → ${to}`;
}

const cycles = cruised.summary.violations.filter((violation) => violation.type === 'cycle');
if (cycles.length > 0) {
  const steps = new Set();
  for (const { from, cycle } of cycles) {
    const folders = [from, ...cycle.map((step) => step.name)];
    for (let i = 0; i + 1 < folders.length; i++)
      steps.add(importBetween(folders[i], folders[i + 1]));
  }
  process.stdout.write(`\nImports that make the folder cycles above (one a step):\n`);
  for (const step of [...steps].sort()) process.stdout.write(`  ${step}\n`);
}

process.exitCode = report.exitCode > 0 ? 1 : 0;
