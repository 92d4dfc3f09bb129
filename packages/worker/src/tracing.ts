import {
  context,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { isSnoozeError, thrownMessage } from '@cyclone/core';
import type { ClaimedStep, ClaimRequest, Completion } from '@cyclone/store-postgres';
import type { HandlerResult } from './executor.js';

/**
 * The worker's tracer. Through `@opentelemetry/api` only: without an SDK registered by the
 * application every span is a no-op; once one is, this proxy tracer delegates to it.
 */
const tracer = trace.getTracer('@cyclone/worker');

/** What the API's tracer provider delegates to while no SDK registered one. */
const noTracerProvider = new ProxyTracerProvider().getDelegate();

/**
 * Whether an OpenTelemetry SDK registered a tracer provider. Without one every span is a no-op,
 * and skipping them saves a step's spans, attributes and context switch (a few percent of a no-op
 * job's cost); checked on every call, so a provider registered later is used from then on.
 */
export function tracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== noTracerProvider;
}

/** Attribute names of Cyclone's spans. */
export const SpanAttributes = {
  runId: 'cyclone.run_id',
  stepId: 'cyclone.step_id',
  node: 'cyclone.node',
  kind: 'cyclone.kind',
  attempt: 'cyclone.attempt',
  workflow: 'cyclone.workflow',
  kinds: 'cyclone.kinds',
  steps: 'cyclone.steps',
} as const;

/** Ends a span with an error status when its work failed. */
function endWith(span: Span, error: unknown): void {
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : thrownMessage(error));
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: thrownMessage(error),
    });
  }
  span.end();
}

/** Runs a claim statement in a `cyclone.claim` span (a root span: a poll has no caller). */
export function traceClaim(
  request: ClaimRequest,
  claim: () => Promise<ClaimedStep[]>,
): Promise<ClaimedStep[]> {
  if (!tracing()) return claim();
  const span = tracer.startSpan(
    'cyclone.claim',
    { kind: SpanKind.CLIENT, attributes: { [SpanAttributes.kinds]: [...request.kinds] } },
    ROOT_CONTEXT,
  );
  return claim().then(
    (steps) => {
      span.setAttribute(SpanAttributes.steps, steps.length);
      span.end();
      return steps;
    },
    (error: unknown) => {
      endWith(span, error);
      throw error;
    },
  );
}

/** Runs a completion statement (a batch of successes) in a `cyclone.complete` span. */
export function traceComplete(
  completions: readonly Completion[],
  complete: () => Promise<Set<string>>,
): Promise<Set<string>> {
  if (!tracing()) return complete();
  const span = tracer.startSpan(
    'cyclone.complete',
    { kind: SpanKind.CLIENT, attributes: { [SpanAttributes.steps]: completions.length } },
    ROOT_CONTEXT,
  );
  return complete().then(
    (accepted) => {
      span.end();
      return accepted;
    },
    (error: unknown) => {
      endWith(span, error);
      throw error;
    },
  );
}

/**
 * Runs a handler's transactional completion (its work, the completion, the commit) in a
 * `cyclone.transaction` span, a child of the step's span (the active context), so the
 * application's own database spans inside it nest there.
 */
export function traceTransaction<T>(stepId: string, run: () => Promise<T>): Promise<T> {
  if (!tracing()) return run();
  const span = tracer.startSpan('cyclone.transaction', {
    kind: SpanKind.CLIENT,
    attributes: { [SpanAttributes.stepId]: stepId },
  });
  return context.with(trace.setSpan(context.active(), span), run).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      endWith(span, error);
      throw error;
    },
  );
}

/**
 * Runs a step's handler in a `cyclone.step` span whose parent is the trace context its run was
 * submitted under (the `cyclone.submit` or `cyclone.enqueue` span), so the handler's work, and
 * any span it starts, joins the submitter's trace. The span is active while the handler runs.
 * The executor calls it only while {@link tracing}: without a provider it calls the handler
 * directly, with no span and no closure to make.
 */
export function traceStep(
  step: ClaimedStep,
  run: () => Promise<HandlerResult>,
): Promise<HandlerResult> {
  const parent =
    step.traceContext === null
      ? ROOT_CONTEXT
      : propagation.extract(ROOT_CONTEXT, step.traceContext);
  const span = tracer.startSpan(
    'cyclone.step',
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        [SpanAttributes.runId]: step.runId,
        [SpanAttributes.stepId]: step.id,
        [SpanAttributes.node]: step.node,
        [SpanAttributes.kind]: step.kind,
        [SpanAttributes.attempt]: step.attempts + 1,
        [SpanAttributes.workflow]: step.workflow,
      },
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), run).then((result) => {
    // A snooze is the handler asking for later, not a failure.
    if (!result.ok && isSnoozeError(result.error)) span.setAttribute('cyclone.snoozed', true);
    endWith(span, result.ok || isSnoozeError(result.error) ? undefined : result.error);
    return result;
  });
}
