import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../domain/errors';
import { setLoggedError } from './access-log';
import { renderError } from './error-rendering';
import { answerJson } from './json-response';

/** Last route: anything no route answered. */
export const notFound: RequestHandler = () => {
  throw new AppError('NOT_FOUND', 'Resource not found');
};

/**
 * The one error handler: `{ statusCode, errorCode, errorMessage, ...extras }`
 * for every failure. Unexpected faults are answered with a bare 500; the
 * access log line of the request carries the error with its stack.
 */
export const errorMiddleware: ErrorRequestHandler = (thrown, req, res, next) => {
  const rendered = renderError(thrown);
  if (rendered.log) {
    setLoggedError(res, thrown instanceof Error ? thrown : new Error(String(thrown)));
  }
  if (res.headersSent) {
    // Too late for a body: Express's final handler closes the connection.
    next(thrown);
    return;
  }
  answerJson(req, res.status(rendered.error.status).set(rendered.headers), rendered.error.toBody());
};
