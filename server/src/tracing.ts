/**
 * OpenTelemetry tracing, started (or not) when this module is loaded.
 *
 * main.ts imports it first, before any module that loads express, mongodb,
 * pino or node:http: OpenTelemetry's instrumentations patch those modules as
 * they are required, so they must be registered before. Every way of
 * running the server goes through main.js (`npm start`, the Docker image,
 * `node server/dist/main.js`), so each gets it; nothing needs `--require`.
 *
 * Off unless the environment turns it on (`loadTracingConfig`,
 * docs/observability.md, Tracing). Off, this module loads config.ts and nothing of OpenTelemetry:
 * the OpenTelemetry modules live in `otel/`, and only `startTracing` below
 * requires them.
 */
import { loadTracingConfig, type TracingConfig } from './config';
import type { Tracing } from './otel/tracing-handle';
import { serverVersion } from './version';

export type { Tracing } from './otel/tracing-handle';

function startTracing(config: TracingConfig): Tracing {
  // Required here, and only here (a `require`, not an import, so that it is
  // loaded only when called): off, nothing of OpenTelemetry is ever loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on (above)
  const { startOpenTelemetry } = require('./otel/start') as typeof import('./otel/start');
  return startOpenTelemetry(config, serverVersion());
}

/**
 * With invalid OTEL_* variables tracing stays off here; `loadConfig` in
 * main reports them as it does every invalid variable, and the start stops.
 */
function fromEnvironment(): Tracing | null {
  const { tracing } = loadTracingConfig();
  return tracing ? startTracing(tracing) : null;
}

/** The process's tracing: null when off. */
export const startedTracing: Tracing | null = fromEnvironment();
