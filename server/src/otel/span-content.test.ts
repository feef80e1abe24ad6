import { SpanStatusCode } from '@opentelemetry/api';
import { logFields } from './log-fields';
import { statementShape } from './mongodb-spans';
import { exportableErrors } from './span-errors';
import { problemLogger } from './problem-log';
import { useInMemoryTracing } from '../test-support/in-memory-tracing';

const { exporter, tracer } = useInMemoryTracing([exportableErrors()]);

describe('exportableErrors', () => {
  it("drops an exception's stack trace before export, keeping its type and message", () => {
    tracer.startActiveSpan('failing', (span) => {
      span.recordException(new TypeError('bad input'));
      span.end();
    });
    const [exception] = exporter.getFinishedSpans().find((span) => span.name === 'failing')?.events ?? [];
    expect(exception?.name).toBe('exception');
    expect(exception?.attributes).toEqual({ 'exception.type': 'TypeError', 'exception.message': 'bad input' });
  });

  it("takes the values a MongoDB error quotes out of the span's status and exceptions (MongoDB's instrumentation sets the driver's message as the status)", () => {
    const duplicate = 'E11000 duplicate key error collection: loyalty.wallets index: _id_ dup key: { _id: "member:m-alice" }';
    tracer.startActiveSpan('findAndModify', (span) => {
      span.recordException(new Error(duplicate));
      span.setStatus({ code: SpanStatusCode.ERROR, message: duplicate });
      span.end();
    });
    const span = exporter.getFinishedSpans().find((finished) => finished.name === 'findAndModify');
    const shown = 'E11000 duplicate key error collection: loyalty.wallets index: _id_ dup key: {…}';
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: shown });
    expect(span?.events[0]?.attributes).toEqual({ 'exception.type': 'Error', 'exception.message': shown });
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

describe('problemLogger (OpenTelemetry diagnostics into the log)', () => {
  it('writes warnings and errors as one line with messages only, never a stack; drops info and debug', () => {
    const lines: string[] = [];
    const logger = problemLogger({ warn: (message) => lines.push(message) });
    // How OpenTelemetry's global error handler hands over an export failure: flattened, stack included.
    const flattened = { stack: 'Error: connect ECONNREFUSED 127.0.0.1:9\n    at TCPConnectWrap.afterConnect (node:net:2083:16)', message: 'connect ECONNREFUSED 127.0.0.1:9', code: 'ECONNREFUSED' };
    logger.error(JSON.stringify(flattened));
    logger.error(flattened as never);
    logger.warn('Dropped 3 spans because maxQueueSize reached');
    logger.error('export failed', new Error('timeout'), { status: 503 });
    logger.info('ignored');
    logger.debug('ignored');
    expect(lines).toEqual([
      'OpenTelemetry: connect ECONNREFUSED 127.0.0.1:9',
      'OpenTelemetry: connect ECONNREFUSED 127.0.0.1:9',
      'OpenTelemetry: Dropped 3 spans because maxQueueSize reached',
      'OpenTelemetry: export failed timeout {"status":503}',
    ]);
  });

  it('writes outside any span: the line is not part of a request', () => {
    let fields: Record<string, string> = {};
    const logger = problemLogger({ warn: () => (fields = logFields()) });
    tracer.startActiveSpan('request', (span) => {
      logger.warn('from within a request');
      span.end();
    });
    expect(fields).toEqual({});
  });
});
