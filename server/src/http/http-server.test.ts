import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import express from 'express';
import { createHttpServer, maxRequestHeaderBytes } from './http-server';

/** Sends a GET with one header of `padding` bytes; resolves with the status and body. */
function getWithHeader(url: string, padding: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/probe`, { headers: { 'X-Padding': 'a'.repeat(padding) } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createHttpServer', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const app = express();
    app.get('/probe', (_req, res) => void res.json({ ok: true }));
    server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  // The limit is the server's own, whatever the process's --max-http-header-size
  // (the Pact verification raises that for its proxy).
  it.each([
    ['just under the limit', maxRequestHeaderBytes - 1024, 200],
    ['over the limit', maxRequestHeaderBytes + 1024, 431],
  ])('a header %s is answered %i', async (_name, padding, status) => {
    const answer = await getWithHeader(url, padding);
    expect(answer.status).toBe(status);
    if (status === 431) {
      expect(JSON.parse(answer.body)).toEqual({ statusCode: 431, errorCode: 'REQUEST_HEADERS_TOO_LARGE', errorMessage: 'Request headers are too large' });
    }
  });
});
