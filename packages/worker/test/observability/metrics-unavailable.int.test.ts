import { describe, expect, it, vi } from 'vitest';
import { isCycloneError } from '@cyclone/core';
import { Worker } from '../../src/index.js';
import { testLogger, useEngine } from '../engine.js';

// This file's workers run as if prom-client were not installed: the real loader, asked for a
// module that does not exist.
vi.mock('@cyclone/scheduler/prom-client', async (importOriginal) => {
  const real = await importOriginal<typeof import('@cyclone/scheduler/prom-client')>();
  return {
    ...real,
    loadPromClient: (component: string) =>
      real.loadPromClient(component, 'cyclone-test-no-such-module'),
  };
});

const engine = useEngine();

describe('a worker without prom-client', () => {
  it('runs jobs, and only metrics() says that prom-client is missing', async () => {
    const worker = await engine.startWorker({ handlers: { 'nm.job': () => 1 } });
    const { runId } = await engine.client.enqueue('nm.job', null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    const error: unknown = await worker.metrics().catch((e: unknown) => e);
    expect(isCycloneError(error, 'METRICS_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/install it \(npm install prom-client\)/);
  });

  it('refuses a metricsRegistry at construction with the same error', () => {
    const registry = { registerMetric: () => undefined, metrics: async () => '', contentType: '' };
    expect(
      () =>
        new Worker({
          connectionString: engine.url,
          handlers: { 'nm.job': () => 1 },
          metricsRegistry: registry,
          logger: testLogger,
        }),
    ).toThrow(expect.objectContaining({ code: 'METRICS_UNAVAILABLE' }));
  });
});
