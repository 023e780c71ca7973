import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import { ConfigError } from '../env';

/** What a process with tracing adds to its Temporal client and workers, and how it flushes its spans. */
export interface Tracing {
  /** a start or signal carries its trace to the workflow in its headers */
  temporalClient: WorkflowClientInterceptor[];
  /** workflow and activity spans: the workflows' spans leave the sandbox through a sink to this process's exporter */
  temporalWorker: Pick<WorkerOptions, 'interceptors' | 'sinks'>;
  shutdown(): Promise<void>;
}

let started: Tracing | undefined;

/** The tracing `startTracing` started in this process, if any. */
export const processTracing = (): Tracing | undefined => started;

/** Health checks and scrapes come every few seconds and say nothing about a request: no trace of their own. */
const UNTRACED = /^\/(health|ready|metrics)(\/|\?|$)/;

/**
 * Starts OpenTelemetry tracing (docs/tracing.md) when `OTEL_EXPORTER_OTLP_ENDPOINT` (or its traces-only variant) is
 * set, before the modules it instruments are loaded: the HTTP server and outgoing requests (`http`), and `pg` queries
 * made within a trace. Unset, nothing of the SDK is loaded and every span the code asks for is the API's no-op.
 * The standard `OTEL_*` variables configure the rest (service name, batch delays, headers).
 */
export function startTracing(role: string, env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (started || env.OTEL_SDK_DISABLED === 'true') return started;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, got "${protocol}"`);
  // Loaded only here, so a process without tracing pays nothing for the SDK.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const sdk: typeof import('@opentelemetry/sdk-node') = require('@opentelemetry/sdk-node');
  const {
    HttpInstrumentation,
  }: typeof import('@opentelemetry/instrumentation-http') = require('@opentelemetry/instrumentation-http');
  const {
    PgInstrumentation,
  }: typeof import('@opentelemetry/instrumentation-pg') = require('@opentelemetry/instrumentation-pg');
  const { OTLPTraceExporter } =
    protocol === 'http/json'
      ? (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http'))
      : (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto'));
  const temporal: typeof import('@temporalio/interceptors-opentelemetry') = require('@temporalio/interceptors-opentelemetry');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const resource = new sdk.resources.Resource({
    'service.name': env.OTEL_SERVICE_NAME || `intent-orchestrator-${role}`,
  });
  // One processor for the process's own spans and its workflows' (src/worker/workers.ts); OTEL_BSP_* tune its batches.
  const spanProcessor = new sdk.tracing.BatchSpanProcessor(new OTLPTraceExporter());
  const nodeSdk = new sdk.NodeSDK({
    resource,
    spanProcessors: [spanProcessor],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED.test(req.url ?? ''),
        // Chain reads and the like made outside any request are not traces of their own.
        requireParentforOutgoingSpans: true,
      }),
      // The lease loop and the pool's own statements poll all the time: only queries within a trace are spans.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  nodeSdk.start();
  started = {
    temporalClient: [new temporal.OpenTelemetryWorkflowClientInterceptor()],
    temporalWorker: {
      interceptors: {
        workflowModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
        activity: [
          (ctx) => ({
            inbound: new temporal.OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new temporal.OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      sinks: { exporter: temporal.makeWorkflowExporter(spanProcessor, resource) },
    },
    shutdown: () => nodeSdk.shutdown(),
  };
  return started;
}

/** Flushes the spans not exported yet (a stopping process calls this last). */
export async function stopTracing(): Promise<void> {
  await started?.shutdown();
}
