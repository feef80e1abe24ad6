import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { AppConfig } from './config';
import { serverVersion } from './version';

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
