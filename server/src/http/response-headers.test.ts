import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type RequestHandler } from 'express';
import { createHttpServer } from './http-server';
import { addResponseHeader, addResponseHeaders, sendPendingHeadersWithWriteHead } from './response-headers';

/*
 * Pending headers must reach the wire on every kind of answer, lose to a
 * header set the usual way, and never appear twice.
 */

let server: Server;
let baseUrl: string;

const pendingOnEveryResponse: RequestHandler = (_req, res, next) => {
  addResponseHeaders(res, ['X-Frame-Options', 'SAMEORIGIN', 'Content-Security-Policy', "default-src 'none'"]);
  addResponseHeader(res, 'X-Request-Id', 'first');
  addResponseHeader(res, 'x-request-id', 'second'); // replaces, whatever the case
  next();
};

beforeAll(async () => {
  const app = express();
  sendPendingHeadersWithWriteHead(app);
  app.use(pendingOnEveryResponse);
  app.get('/implicit', (_req, res) => void res.end('plain'));
  app.get('/write-head-object', (_req, res) => void res.writeHead(201, { 'Content-Type': 'text/plain' }).end('object'));
  app.get('/write-head-flat', (_req, res) => void res.writeHead(202, 'Accepted Here', ['Content-Type', 'text/plain', 'X-Frame-Options', 'DENY']).end('flat'));
  app.get('/set-header', (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'");
    res.setHeader('Cache-Control', 'no-store');
    res.end('set');
  });
  app.get('/express-json', (_req, res) => void res.status(418).set('Retry-After', '1').json({ ok: true }));
  app.get('/error', () => {
    throw new Error('boom');
  });
  server = createHttpServer(app).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Expected = Record<string, string | null>;

it.each<[string, string, number, Expected]>([
  ['an answer started implicitly (res.end)', '/implicit', 200, { 'x-frame-options': 'SAMEORIGIN', 'x-request-id': 'second' }],
  ['writeHead with an object', '/write-head-object', 201, { 'content-type': 'text/plain', 'x-frame-options': 'SAMEORIGIN', 'x-request-id': 'second' }],
  ['writeHead with a flat list: its header wins', '/write-head-flat', 202, { 'content-type': 'text/plain', 'x-frame-options': 'DENY', 'x-request-id': 'second' }],
  [
    'headers set with setHeader: they win, pending ones are added',
    '/set-header',
    200,
    { 'content-security-policy': "default-src 'self'", 'cache-control': 'no-store', 'x-frame-options': 'SAMEORIGIN' },
  ],
  ["Express's res.set and res.json", '/express-json', 418, { 'retry-after': '1', 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'second' }],
  // Express's final handler sets its own CSP; x-request-id is only ever pending here.
  ["Express's final handler (an error)", '/error', 500, { 'x-frame-options': 'SAMEORIGIN', 'content-security-policy': "default-src 'none'", 'x-request-id': 'second' }],
])('%s', async (_case, path, status, expected) => {
  const response = await fetch(baseUrl + path);
  await response.arrayBuffer();
  expect(response.status).toBe(status);
  for (const [name, value] of Object.entries(expected)) expect([name, response.headers.get(name)]).toEqual([name, value]);
});

it('sends each header once', async () => {
  for (const path of ['/implicit', '/write-head-flat', '/set-header']) {
    const response = await fetch(baseUrl + path);
    await response.arrayBuffer();
    // fetch joins repeated headers with ", ".
    expect(response.headers.get('x-frame-options')).not.toContain(',');
    expect(response.headers.get('x-request-id')).toBe('second');
  }
});

it('keeps the reason phrase given to writeHead', async () => {
  const response = await fetch(baseUrl + '/write-head-flat');
  await response.arrayBuffer();
  expect(response.statusText).toBe('Accepted Here');
});
