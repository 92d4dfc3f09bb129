/**
 * `@cyclone/scheduler/prom-client`: Cyclone's Prometheus pieces shared by its packages: how the
 * engine loads prom-client (the scheduler and `@cyclone/worker`, which depends on this package for
 * `scheduler: true`), and the gauges read from the database that the worker and
 * `@cyclone/server` print, so each metric has one name and one meaning everywhere. Not meant for
 * applications: they use prom-client itself.
 *
 * @packageDocumentation
 */
export { loadPromClient, type PromClient } from './load-prom-client.js';
export {
  DatabaseGaugeDefinitions,
  DatabaseGauges,
  type DatabaseGaugesOptions,
} from './database-gauges.js';
