import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';

/**
 * A trace carried across a hand-off that a later process may perform (an outbox row, a webhook event): the W3C
 * `traceparent` (and `tracestate`) of the span it was recorded in.
 */
export type TraceContext = Record<string, string>;

const tracer = trace.getTracer('intent-orchestrator');

/** The active trace's context, to record with a row; null without tracing (or outside a trace). */
export function currentTraceContext(): TraceContext | null {
  const carrier: TraceContext = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/**
 * Runs `fn` in a span that continues `recorded` (the trace a row was written in) when it has one, else the active
 * trace; a span that continues a recorded trace links to the active one (the sweep that performs the row). Without
 * tracing the span is the API's no-op.
 */
export function inSpan<T>(
  name: string,
  recorded: TraceContext | null | undefined,
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  const active = trace.getActiveSpan();
  const parent = recorded ? propagation.extract(context.active(), recorded) : context.active();
  const links = recorded && active ? [{ context: active.spanContext() }] : [];
  return tracer.startActiveSpan(name, { kind: SpanKind.PRODUCER, attributes, links }, parent, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The active span's trace id, when tracing records one (the request logs' and error bodies' `traceId`). */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? span.traceId : undefined;
}

/** Names the request's server span by its route (`POST /intents`), as the request metrics are labelled. */
export function nameServerSpan(method: string, route: string): void {
  trace.getActiveSpan()?.updateName(`${method} ${route}`).setAttribute('http.route', route);
}
