import { createRequire } from 'node:module';
import { MetricsUnavailableError } from '@cyclone/core';
import type * as PromClientModule from 'prom-client';

/** The parts of prom-client the engine uses, loaded when a worker or a scheduler is built. */
export type PromClient = Pick<
  typeof PromClientModule,
  'Registry' | 'Counter' | 'Gauge' | 'Histogram'
>;

const load = createRequire(import.meta.url);

/**
 * Loads prom-client, an optional peer dependency: synchronously, so that the counters exist before
 * the first claim, and from this package's location, so that the application's own copy (the one
 * its `Registry` comes from) is the one used.
 *
 * Only the four classes the engine uses are loaded, from their own files: prom-client's entry
 * point also loads its push gateway (with Node's HTTP clients), its cluster aggregator and its
 * summaries, three to seven times the time of the four, and a worker's construction waited for
 * all of it (decision 298). They are the same classes the entry point exports (it re-exports
 * these files), so a `Registry` the application made with `require('prom-client')` is one of
 * them. A prom-client whose files are laid out otherwise is loaded whole.
 *
 * @param moduleName - what to load; tests pass a missing name
 * @throws MetricsUnavailableError when it cannot be loaded
 */
export function loadPromClient(component: string, moduleName = 'prom-client'): PromClient {
  try {
    return loadClasses(moduleName);
  } catch (error) {
    throw new MetricsUnavailableError(component, { cause: error });
  }
}

function loadClasses(moduleName: string): PromClient {
  try {
    return {
      Registry: load(`${moduleName}/lib/registry`) as PromClient['Registry'],
      Counter: load(`${moduleName}/lib/counter`) as PromClient['Counter'],
      Gauge: load(`${moduleName}/lib/gauge`) as PromClient['Gauge'],
      Histogram: load(`${moduleName}/lib/histogram`) as PromClient['Histogram'],
    };
  } catch {
    return load(moduleName) as PromClient;
  }
}
