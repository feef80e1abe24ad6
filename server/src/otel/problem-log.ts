import { context, trace, type DiagLogger } from '@opentelemetry/api';

/**
 * OpenTelemetry's own warnings and errors (a collector that does not
 * answer, spans dropped from a full queue) as warnings in the server's log.
 * Outside any request's context, so the line carries no trace id; errors
 * give their message only, never a stack.
 */
export function problemLogger(logger: { warn(message: string): void }): DiagLogger {
  const write = (message: unknown, ...args: unknown[]) =>
    context.with(trace.deleteSpan(context.active()), () => logger.warn(`OpenTelemetry: ${[message, ...args].map(describe).join(' ')}`));
  const ignore = () => undefined;
  return { error: write, warn: write, info: ignore, debug: ignore, verbose: ignore };
}

/** Longest text one argument of a problem adds to its line. */
const maxArgumentLength = 500;

function describe(value: unknown): string {
  const text = errorMessage(value) ?? (typeof value === 'string' ? value : stringify(value));
  return text.length > maxArgumentLength ? `${text.slice(0, maxArgumentLength)}…` : text;
}

/**
 * The message of an error, of an error flattened into a plain object, or of
 * one flattened and then written as JSON (how OpenTelemetry's global error
 * handler reports an export that failed), without its stack.
 */
function errorMessage(value: unknown): string | undefined {
  let candidate = value;
  if (typeof value === 'string' && value.startsWith('{')) {
    try {
      candidate = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof candidate === 'object' && candidate !== null && 'message' in candidate && typeof candidate.message === 'string') return candidate.message;
  return undefined;
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
