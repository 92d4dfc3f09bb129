import { createRequire } from 'node:module';
import { MetricsUnavailableError } from '@cyclone/core';
import type * as PromClientModule from 'prom-client';

/** The prom-client module, loaded when a worker or a scheduler is built. */
export type PromClient = typeof PromClientModule;

const load = createRequire(import.meta.url);

/**
 * Loads prom-client, an optional peer dependency: synchronously, so that the counters exist before
 * the first claim, and from this package's location, so that the application's own copy (the one
 * its `Registry` comes from) is the one used.
 *
 * @param moduleName - what to load; tests pass a missing name
 * @throws MetricsUnavailableError when it cannot be loaded
 */
export function loadPromClient(component: string, moduleName = 'prom-client'): PromClient {
  try {
    return load(moduleName) as PromClient;
  } catch (error) {
    throw new MetricsUnavailableError(component, { cause: error });
  }
}
