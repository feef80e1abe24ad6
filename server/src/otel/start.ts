/**
 * The OpenTelemetry SDK of the server: spans of each request (node:http's
 * server spans, renamed after the spec's operationId), of each store call
 * and rate-limit count within it, and of each MongoDB command, sent in
 * batches over OTLP/HTTP. Only `tracing.ts` loads this module, and only
 * when tracing is on.
 */
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import pTimeout from 'p-timeout';
import type { OtlpProtocol, TracingConfig } from '../config';
import type { Tracing } from './tracing-handle';
import { httpInstrumentation } from './http-spans';
import { logFields } from './log-fields';
import { mongoInstrumentation } from './mongodb-spans';
import { exportableErrors } from './span-errors';
import { problemLogger } from './problem-log';
import { tracedRequestCounter } from './traced-request-counter';
import { tracedStore } from './traced-store';

/** The name of the server's own tracer (store and rate-limit spans). */
const tracerName = '@loyalty/server';

/**
 * How long the shutdown waits for the last spans to go out. An unreachable
 * collector would otherwise hold the exit for the exporter's timeout and the
 * batch processor's (10 s and 30 s by default).
 */
const shutdownLimitMs = 5000;

/** `version`: the server's, as `service.version` (OTEL_RESOURCE_ATTRIBUTES may say otherwise). */
export function startOpenTelemetry(config: TracingConfig, version: string): Tracing {
  const provider = new NodeTracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: version }))
      .merge(detectResources({ detectors: [envDetector] })),
    // The sampler (OTEL_TRACES_SAMPLER), the span limits (OTEL_SPAN_*) and the
    // batch processor's queue and delays (OTEL_BSP_*) come from the environment.
    spanProcessors: [exportableErrors(), new BatchSpanProcessor(spanExporter(config.protocol))],
  });
  // AsyncLocalStorage carries the active span through promises and callbacks;
  // W3C Trace Context (and Baggage) propagation reads a caller's `traceparent`.
  provider.register();
  registerInstrumentations({ tracerProvider: provider, instrumentations: [httpInstrumentation(config.memberIds), mongoInstrumentation()] });
  const tracer = provider.getTracer(tracerName);
  return {
    traceStore: (store) => tracedStore(store, tracer),
    traceRequestCounter: (counter) => tracedRequestCounter(counter, tracer),
    logFields,
    description: `Tracing on: OTLP ${config.protocol} to ${config.endpoint}`,
    reportProblemsTo: (logger) => diag.setLogger(problemLogger(logger), DiagLogLevel.WARN),
    shutdown: () => withinLimit(provider.shutdown(), shutdownLimitMs),
  };
}

/** The OTLP/HTTP exporter of `protocol`; either reads its endpoint, headers, timeout and compression from OTEL_EXPORTER_OTLP_*. */
function spanExporter(protocol: OtlpProtocol): SpanExporter {
  return protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
}

/** Waits for `pending` at most `ms`; whether it fails or is cut short, the shutdown goes on. */
async function withinLimit(pending: Promise<void>, ms: number): Promise<void> {
  await pTimeout(pending.catch(() => undefined), { milliseconds: ms, message: false });
}
