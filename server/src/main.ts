import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { pino, type Logger } from 'pino';
import { createApp } from './app';
import { buildDeps, describeStore, type BuildDeps } from './composition';
import { ConfigError, loadConfig, type AppConfig } from './config';
import { answerParserErrors } from './http/client-error';
import { prepareGracefulClose } from './http/graceful-shutdown';
import { createHttpServer } from './http/http-server';

export interface RunningServer {
  /** `http://host:port` the server listens on. */
  url: string;
  /** Stops gracefully (see `prepareGracefulClose`), then closes the store. Safe to call twice. */
  stop(): Promise<void>;
}

/** Builds everything from `config`, listens on `config.port`; closes the store again if the start fails. */
export async function startServer(config: AppConfig, logger: Logger, build: BuildDeps = buildDeps): Promise<RunningServer> {
  logger.info(`Using ${describeStore(config)}`);
  const deps = await build(config, logger);
  let server: Server;
  try {
    const app = await createApp({ services: deps.services, store: deps.store, logger, config });
    server = await listen(app, config.port);
    answerParserErrors(server);
  } catch (error) {
    await deps.store.close();
    throw error;
  }
  const closeGracefully = prepareGracefulClose(server);
  const url = urlOf(server);
  logger.info({ url }, `Listening on ${url}`);

  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    logger.info(`Shutting down: waiting up to ${config.shutdownGraceMs} ms for requests in flight`);
    if ((await closeGracefully(config.shutdownGraceMs)) === 'forced') {
      logger.warn('Requests still in flight at the end of the grace period were cut');
    }
    await deps.store.close();
    logger.info('Stopped');
  };
  return { url, stop: () => (stopping ??= stop()) };
}

function listen(app: Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app).listen(port);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

function urlOf(server: Server): string {
  const { address, port, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

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

/** The process: config, start, and a graceful stop on SIGTERM/SIGINT (a second signal kills at once). */
function main(): void {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
  const logger = pino({ level: config.logLevel }, pino.destination(logDestination));
  startServer(config, logger).then(
    (running) => {
      const onSignal = (signal: NodeJS.Signals): void => {
        logger.info(`${signal} received`);
        running.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'Shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    },
    (error: unknown) => {
      logger.fatal({ err: error }, `Start failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

if (require.main === module) main();
