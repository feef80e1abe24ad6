import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * A tracer provider registered for the test file (before all its tests,
 * shut down and unregistered after), exporting finished spans to memory.
 * `before` runs ahead of the exporter (a processor under test).
 */
export function useInMemoryTracing(before: SpanProcessor[] = []) {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [...before, new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  return { exporter, tracer: provider.getTracer('test') };
}
