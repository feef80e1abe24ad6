import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import { answerParserErrors } from './client-error';

/**
 * The HTTP server for `app`: Node's own, with the spec's header limit, and
 * answering requests Node's parser refuses in the documented error shape
 * (`answerParserErrors`). `main`, the test apps and the Pact provider all
 * listen through it, so each gets the same limits and parser answers.
 */
export function createHttpServer(app: Express): Server {
  const server = createServer({ maxHeaderSize: maxRequestHeaderBytes }, app);
  answerParserErrors(server);
  return server;
}

/**
 * The spec's limit on a request's headers and URL (its `431`), set on the
 * server rather than left to Node's default, which `--max-http-header-size`
 * changes for the whole process (the Pact verification raises it for the
 * proxy in front of the app).
 */
export const maxRequestHeaderBytes = 16 * 1024;
