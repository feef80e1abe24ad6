import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { AppError } from '../domain/errors';
import { jsonBody } from './json-body';

/*
 * A client that sends a body and goes away before the parser reads it: the
 * parser then passes over the request with no body. The race is made certain
 * by a step before the parser that waits until the connection has closed.
 */

const untilClientGone: RequestHandler = (req, _res, next) => {
  if (req.socket.destroyed) next();
  else req.socket.once('close', () => next());
};

it('a request whose client left before its body was read stops before the operation, as a client fault', async () => {
  const reached: unknown[] = [];
  const failures: unknown[] = [];
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const app = express();
  app.put('/x', untilClientGone, ...jsonBody(1024), (req, res) => {
    reached.push(req.body);
    res.end();
    settle();
  });
  const recordFailure: ErrorRequestHandler = (error, _req, _res, _next) => {
    failures.push(error);
    settle();
  };
  app.use(recordFailure);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const body = '{"reservationAmount":1}';
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.end(`PUT /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    socket.destroy();
    await settled;
    expect(reached).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(AppError);
    expect(failures[0]).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
