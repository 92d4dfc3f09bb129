/**
 * What `metricsRegistry` accepts: a prom-client `Registry` of the application, typed by shape, so
 * that the published declarations never import prom-client's and an application without it
 * type-checks.
 */
export interface MetricsRegistry {
  registerMetric(metric: unknown): void;
  metrics(): Promise<string>;
  readonly contentType: string;
}
