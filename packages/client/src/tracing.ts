import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { thrownMessage } from '@cyclone/core';

/**
 * The client's tracer. Through `@opentelemetry/api` only: without an SDK registered by the
 * application every span is a no-op; once one is, this proxy tracer delegates to it.
 */
const tracer = trace.getTracer('@cyclone/client');

/** A W3C trace context as propagated: `traceparent` and, when set, `tracestate`. */
export type TraceContext = Readonly<Record<string, string>>;

/**
 * Runs a submission in a `cyclone.submit` or `cyclone.enqueue` span and gives it the span's
 * trace context, injected with the application's propagator (W3C trace context with the SDK's
 * defaults), to store on the runs: the worker's step spans become children of this span. Without
 * an SDK the context is empty and `null` is stored.
 */
export function traceSubmission<T extends readonly { readonly runId: string }[]>(
  name: 'cyclone.submit' | 'cyclone.enqueue',
  attributes: { readonly workflow: string; readonly runs: number },
  submit: (traceContext: TraceContext | null) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(
    name,
    {
      kind: SpanKind.PRODUCER,
      attributes: { 'cyclone.workflow': attributes.workflow, 'cyclone.runs': attributes.runs },
    },
    async (span) => {
      try {
        const carrier: Record<string, string> = {};
        propagation.inject(context.active(), carrier);
        const submitted = await submit(Object.keys(carrier).length > 0 ? carrier : null);
        if (submitted.length === 1) span.setAttribute('cyclone.run_id', submitted[0]!.runId);
        return submitted;
      } catch (error) {
        span.recordException(error instanceof Error ? error : thrownMessage(error));
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: thrownMessage(error),
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
