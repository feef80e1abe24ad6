import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { AppConfig } from './config';
import { serverVersion } from './version';

/**
 * Standard output, buffered: lines are written 4 kB at a time (about twenty
 * access log lines), and at least once a second, so a quiet server still
 * shows its lines promptly. A write per line (a system call and a thread-pool
 * round trip each) was the largest single cost of the access log. pino
 * flushes the buffer when the process exits (signal, fatal start, `exit`); a
 * crash that kills the process outright (SIGKILL, OOM) loses at most the
 * last second of lines.
 */
export const logDestination = { dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 } as const;

/**
 * The process's logger: JSON lines an operator can keep, each with its ISO
 * time, its level by name, and the service and its version (what
 * OpenTelemetry calls `service.name` and `service.version`):
 *
 *   {"level":"info","time":"2026-11-27T09:14:03.512Z","pid":7,"hostname":"api-1",
 *    "service":"loyalty-api","version":"1.0.0","msg":"Listening on http://0.0.0.0:3000"}
 *
 * `mixin`: fields of the moment on each line (with tracing on, the trace and span ids).
 */
export function createLogger(config: Pick<AppConfig, 'logLevel' | 'serviceName'>, destination: DestinationStream, mixin?: () => Record<string, string>): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { pid: process.pid, hostname: hostname(), service: config.serviceName, version: serverVersion() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      ...(mixin && { mixin }),
    },
    destination,
  );
}
