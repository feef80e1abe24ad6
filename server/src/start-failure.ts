/**
 * Why the server refused to start, as the one plain-text message `main`
 * prints on stderr before it exits with 1. Each known reason says what is
 * wrong and where (the variable, the fixture's paths, the spec, the
 * database and the driver's own cause, the port); anything else gives its
 * message. A stack trace only when asked for (LOG_LEVEL=debug or trace).
 */
import { describeStore, EmbeddedStoreRefusedError } from './composition';
import { ConfigError, type AppConfig } from './config';
import { InvalidSpecError } from './http/spec';
import { FixtureError } from './features/load/fixture-error';
import { LayoutMismatchError } from './store/mongo/layout';
import { StoreUnavailableError } from './store/port';

export interface StartFailureContext {
  /** Null when the configuration itself could not be read. */
  config: Pick<AppConfig, 'mongo' | 'port' | 'metrics'> | null;
  verbose: boolean;
}

export function describeStartFailure(error: unknown, context: StartFailureContext): string {
  const known = knownReason(error, context.config);
  const message = known ?? `The server cannot start: ${error instanceof Error ? error.message : String(error)}`;
  if (context.verbose && error instanceof Error && error.stack) return `${message}\n\n${error.stack}`;
  return known ? message : `${message}\n(Set LOG_LEVEL=debug to see where it failed.)`;
}

function knownReason(error: unknown, config: StartFailureContext['config']): string | null {
  // These messages already name what is wrong and where.
  if (
    error instanceof ConfigError ||
    error instanceof EmbeddedStoreRefusedError ||
    error instanceof FixtureError ||
    error instanceof InvalidSpecError ||
    error instanceof LayoutMismatchError
  ) {
    return error.message;
  }
  if (error instanceof StoreUnavailableError && config?.mongo) {
    return `Cannot reach ${describeStore(config)} (within MONGODB_SERVER_SELECTION_TIMEOUT_MS=${config.mongo.serverSelectionTimeoutMs}): ${error.message}`;
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if ((code !== 'EADDRINUSE' && code !== 'EACCES') || !config) return null;
  // Node's listen error names its port: the API's or the metrics listener's.
  const failed = (error as { port?: unknown }).port;
  const metrics = config.metrics !== null && failed === config.metrics.port;
  const [port, variable] = metrics ? [failed, 'METRICS_PORT'] : [config.port, 'PORT'];
  if (code === 'EADDRINUSE') return `Port ${port} is already in use: stop what listens there, or set ${variable} to another port.`;
  return `No permission to listen on port ${port}: set ${variable} to a port above 1023.`;
}
