import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { logFields } from './log-fields';
import { statementShape } from './mongodb-spans';
import { withoutStackTraces } from './no-stack-traces';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [withoutStackTraces(), new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');

beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

describe('withoutStackTraces', () => {
  it("drops an exception's stack trace before export, keeping its type and message", () => {
    tracer.startActiveSpan('failing', (span) => {
      span.recordException(new TypeError('bad input'));
      span.end();
    });
    const [exception] = exporter.getFinishedSpans().find((span) => span.name === 'failing')?.events ?? [];
    expect(exception?.name).toBe('exception');
    expect(exception?.attributes).toEqual({ 'exception.type': 'TypeError', 'exception.message': 'bad input' });
  });
});

describe('logFields (pino mixin)', () => {
  it('gives the trace id, span id and flags of the active span', () => {
    tracer.startActiveSpan('request', (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(logFields()).toEqual({ trace_id: traceId, span_id: spanId, trace_flags: '01' });
      span.end();
    });
  });

  it('gives nothing outside a span', () => {
    expect(logFields()).toEqual({});
  });
});

describe('statementShape (db.query.text)', () => {
  it('replaces every value by ?, keeping the keys', () => {
    const command = { find: 'sessions', filter: { tokenHash: 'a1b2c3', expiresAt: { $gt: new Date(0) } }, limit: 1 };
    expect(statementShape(command)).toBe('{"find":"?","filter":{"tokenHash":"?","expiresAt":{"$gt":"?"}},"limit":"?"}');
  });

  it('shows the first three items of an array and at most 1024 characters', () => {
    const items = Array.from({ length: 5000 }, (_, index) => ({ [`field${index}`]: index }));
    expect(statementShape({ insert: 'wallets', documents: items.slice(0, 5) })).toBe('{"insert":"?","documents":[{"field0":"?"},{"field1":"?"},{"field2":"?"}]}');
    const wide = Object.fromEntries(items.map((item, index) => [`key${index}`, item]));
    const shape = statementShape(wide);
    expect(shape).toHaveLength(1025);
    expect(shape.endsWith('…')).toBe(true);
  });
});
