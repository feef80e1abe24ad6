// First, before any module that loads express, mongodb, pino or node:http:
// tracing, when the environment turns it on, must patch them as they load.
import { startedTracing, type Tracing } from './tracing';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants as osConstants } from 'node:os';
import { pino, type Logger } from 'pino';
import { createApp } from './app';
import { buildDeps, describeStore, refuseUnallowedStore, type BuildDeps } from './composition';
import { loadConfig, type AppConfig } from './config';
import { prepareGracefulClose, ShutdownDelay } from './http/graceful-shutdown';
import { createHttpServer } from './http/http-server';
import { metricsServer } from './http/metrics-route';
import { loadServedSpec } from './http/routes';
import { describeStartFailure } from './start-failure';
import { newLogKey } from './domain/secrets';
import { createLogger, logDestination } from './logger';

export interface RunningServer {
  /** `http://host:port` the server listens on. */
  url: string;
  /** The API's listener (tests watch the requests it takes). */
  server: Server;
  /** Where `/metrics` is served (METRICS_PORT), on a port of its own; absent with METRICS=off. */
  metricsUrl?: string;
  /**
   * Stops gracefully: not ready but serving for `SHUTDOWN_DELAY_MS` (see
   * `ShutdownDelay`), then the drain (`prepareGracefulClose`), then the
   * store is closed. Safe to call twice.
   */
  stop(): Promise<void>;
  /** Ends the stop's delay early (the drain begins); false when no delay is under way. */
  skipDelay(): boolean;
}

export interface StartOptions {
  /** The process's tracing, when on: the store calls and rate-limit counts of requests are traced, and stopping sends the last spans. */
  tracing?: Tracing | null;
  /** Validate every response against the spec (tests): a response that breaks it becomes a 500. */
  validateResponses?: boolean;
}

/**
 * Builds everything from `config`, listens on `config.port`; closes the store
 * again if the start fails. Tests start the app through here too (their own
 * `build`), so what they run is main's own wiring.
 */
export async function startServer(config: AppConfig, logger: Logger, build: BuildDeps = buildDeps, options: StartOptions = {}): Promise<RunningServer> {
  const tracing = options.tracing ?? null;
  refuseUnallowedStore(config);
  logger.info(`Using ${describeStore(config)}`);
  if (tracing) logger.info(tracing.description);
  // Loaded and checked once, before anything connects: a broken spec stops the start cheaply.
  const spec = await loadServedSpec();
  const deps = await build(config, logger, tracing);
  const delay = new ShutdownDelay();
  let server: Server | undefined;
  let metricsListener: Server | null = null;
  try {
    const app = await createApp({
      spec,
      services: deps.services,
      store: deps.store,
      logger,
      config,
      ...(options.validateResponses && { validateResponses: true }),
      ...(deps.liveness && { liveness: deps.liveness }),
      stopping: () => delay.stopping,
      ...(deps.requestCounter && { requestCounter: deps.requestCounter }),
      ...(deps.metrics && { metrics: deps.metrics }),
      memberIds: { mode: config.logMemberIds, key: deps.logKey ?? newLogKey() },
    });
    server = await listen(createHttpServer(app), config.port);
    if (deps.metrics && config.metrics) metricsListener = await listen(metricsServer(deps.metrics), config.metrics.port);
  } catch (error) {
    // The API may be listening already (the metrics listener failed).
    if (server) await closeServer(server);
    await deps.store.close();
    throw error;
  }
  const closeGracefully = prepareGracefulClose(server);
  const url = urlOf(server);
  logger.info({ url }, `Listening on ${url}`);
  if (metricsListener) logger.info({ metricsUrl: urlOf(metricsListener) }, `Metrics on ${urlOf(metricsListener)}/metrics`);

  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    if (config.shutdownDelayMs > 0) logger.info(`Shutting down: not ready, still serving for ${config.shutdownDelayMs} ms`);
    await delay.begin(config.shutdownDelayMs);
    logger.info(`Shutting down: waiting up to ${config.shutdownGraceMs} ms for requests in flight`);
    if ((await closeGracefully(config.shutdownGraceMs)) === 'forced') {
      logger.warn('Requests still in flight at the end of the grace period were cut');
    }
    if (metricsListener) await closeServer(metricsListener);
    // Closing the store first delivers what the last answers left to do (its outbox).
    await deps.store.close();
    // Last: the spans of everything above, the outbox's deliveries included.
    if (tracing) await tracing.shutdown();
    logger.info('Stopped');
  };
  return {
    url,
    server,
    ...(metricsListener && { metricsUrl: urlOf(metricsListener) }),
    stop: () => (stopping ??= stop()),
    skipDelay: () => delay.skip(),
  };
}

function listen(server: Server, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.listen(port);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function urlOf(server: Server): string {
  const { address, port, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return `http://${host}:${port}`;
}


/**
 * A terminal's Ctrl+C reaches the server twice under `npm start`: from the
 * terminal, and again from npm, which forwards the signals it gets. A signal
 * this soon after the first is that copy, not a second request to stop.
 */
const repeatedSignalMs = 1000;

/**
 * Stops gracefully on the first SIGTERM or SIGINT, then exits 0 (1 if the
 * stop failed). A later signal during the stop's delay ends the delay (the
 * drain begins); one after that exits at once with 128 + its number,
 * without waiting for requests in flight.
 */
export function stopOnSignals(
  running: Pick<RunningServer, 'stop' | 'skipDelay'>,
  logger: Logger,
  processLike: Pick<NodeJS.Process, 'on' | 'exit'> = process,
  now: () => number = Date.now,
): void {
  let firstAt: number | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (firstAt !== null) {
      if (now() - firstAt < repeatedSignalMs) return;
      if (running.skipDelay()) {
        logger.info(`${signal} received again: draining now, without the rest of the shutdown delay`);
        return;
      }
      logger.warn(`${signal} received again: exiting without waiting for requests in flight`);
      processLike.exit(128 + osConstants.signals[signal]);
      return;
    }
    firstAt = now();
    logger.info(`${signal} received`);
    running.stop().then(
      () => processLike.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'Shutdown failed');
        processLike.exit(1);
      },
    );
  };
  processLike.on('SIGTERM', onSignal);
  processLike.on('SIGINT', onSignal);
}

/**
 * The process: config, start, and a graceful stop on SIGTERM/SIGINT. A start
 * that fails prints one plain message on stderr (describeStartFailure) and
 * exits 1.
 */
async function main(): Promise<void> {
  let config: AppConfig | null = null;
  try {
    config = loadConfig();
    const tracing = startedTracing;
    // With tracing on, each line of a request carries its trace_id and span_id.
    const logger = createLogger(config, pino.destination(logDestination), tracing?.logFields);
    tracing?.reportProblemsTo(logger);
    stopOnSignals(await startServer(config, logger, buildDeps, { tracing }), logger);
  } catch (error) {
    const verbose = config?.logLevel === 'debug' || config?.logLevel === 'trace';
    process.stderr.write(`${describeStartFailure(error, { config, verbose })}\n`);
    process.exit(1);
  }
}

if (require.main === module) void main();
