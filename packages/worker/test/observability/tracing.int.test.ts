import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { workflow } from '@cyclone/core';
import { eventually, useEngine } from '../engine.js';

const engine = useEngine();
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

// What an application's SDK set-up does: a tracer provider, a context manager, the W3C propagator.
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const spansNamed = (name: string): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.name === name);

describe('tracing', () => {
  it('runs a handler in a cyclone.step span of the trace that submitted its run', async () => {
    let handlerSpanId: string | undefined;
    const order = workflow('traced').task('charge', 'trace.charge', { maxAttempts: 2 }).build();
    await engine.startWorker({
      handlers: {
        'trace.charge': () => {
          handlerSpanId = trace.getActiveSpan()?.spanContext().spanId;
          return 'charged';
        },
      },
      workflows: [order],
    });
    const app = trace.getTracer('test-app');
    const { runId, traceId } = await app.startActiveSpan('http request', async (root) => {
      const submitted = await engine.client.submit(order, { orderId: 1 });
      root.end();
      return { ...submitted, traceId: root.spanContext().traceId };
    });
    await engine.client.wait(runId, { timeout: '10s' });

    const [submit] = spansNamed('cyclone.submit');
    expect(submit!.spanContext().traceId).toBe(traceId);
    expect(submit!.attributes).toMatchObject({
      'cyclone.workflow': 'traced',
      'cyclone.run_id': runId,
    });
    const step = await eventually(() => spansNamed('cyclone.step')[0], 'the step span');
    const [stepRow] = await engine.client.listSteps(runId);
    expect(step.spanContext().traceId).toBe(traceId);
    expect(step.parentSpanContext?.spanId).toBe(submit!.spanContext().spanId);
    expect(step.attributes).toEqual({
      'cyclone.run_id': runId,
      'cyclone.step_id': stepRow!.id,
      'cyclone.node': 'charge',
      'cyclone.kind': 'trace.charge',
      'cyclone.attempt': 1,
      'cyclone.workflow': 'traced',
    });
    // The step span is the active span while the handler runs: the handler's own spans nest in it.
    expect(handlerSpanId).toBe(step.spanContext().spanId);
    await eventually(() => spansNamed('cyclone.complete').length > 0, 'the complete span');
    expect(spansNamed('cyclone.claim').some((s) => s.attributes['cyclone.steps'] === 1)).toBe(true);
  });

  it('carries an enqueue span into the job, and marks a failed attempt as an error', async () => {
    let calls = 0;
    await engine.startWorker({
      handlers: {
        'trace.flaky': () => {
          if (calls++ === 0) throw new Error('flaky');
          return 'ok';
        },
      },
    });
    const { runId } = await engine.client.enqueue('trace.flaky', null, {
      maxAttempts: 2,
    });
    await eventually(async () => {
      await engine.query(
        `UPDATE cyclone_steps SET scheduled_at = now() WHERE run_id = $1 AND state = 'available'`,
        [runId],
      );
      return (await engine.client.getRun(runId)).state === 'completed';
    }, 'the job to complete');
    const [enqueue] = spansNamed('cyclone.enqueue');
    const steps = await eventually(
      () => (spansNamed('cyclone.step').length === 2 ? spansNamed('cyclone.step') : undefined),
      'both attempts',
    );
    const byAttempt = steps.sort(
      (a, b) => Number(a.attributes['cyclone.attempt']) - Number(b.attributes['cyclone.attempt']),
    );
    for (const span of byAttempt) {
      expect(span.spanContext().traceId).toBe(enqueue!.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(enqueue!.spanContext().spanId);
    }
    expect(byAttempt.map((s) => s.status.code)).toEqual([2, 0]); // ERROR, then UNSET
    expect(byAttempt[0]!.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('stores no trace context for a run submitted without a tracer provider', async () => {
    trace.disable();
    propagation.disable();
    try {
      const { runId } = await engine.client.enqueue('trace.none', null);
      const [row] = await engine.query<{ trace_context: unknown }>(
        'SELECT trace_context FROM cyclone_runs WHERE id = $1',
        [runId],
      );
      expect(row!.trace_context).toBeNull();
    } finally {
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      trace.setGlobalTracerProvider(provider);
    }
  });
});
