import { Agent, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

/**
 * Raw HTTP for requests fetch would refuse or normalise: odd content types,
 * bodies that are not JSON, long headers and paths, any method. Every request
 * has a deadline: an answer that does not come is a hang, reported as such.
 */

export interface RawRequest {
  method: string;
  /** Sent as is: percent-encode what needs it. */
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
}

export class HangError extends Error {
  constructor(req: RawRequest, ms: number) {
    super(`no answer within ${ms} ms to ${req.method} ${req.path.slice(0, 200)}`);
    this.name = 'HangError';
  }
}

/** The request cannot even be written (a header value Node refuses): not the server's business. */
export class UnsendableError extends Error {}

// Idle sockets are dropped after 4 s, before the server's 5 s keep-alive timeout
// closes them: otherwise a request may go out on a socket the server is closing
// at that very moment (ECONNRESET), a race of the client, not the server.
const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 4000 });

/** `connection`: `new` opens a connection of its own for the request, as a new client (or a load balancer's probe) does. */
export function send(baseUrl: string, req: RawRequest, timeoutMs = 10_000, connection: 'kept-alive' | 'new' = 'kept-alive'): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let outgoing;
    try {
      outgoing = request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers: req.headers, agent: connection === 'new' ? false : agent });
    } catch (error) {
      reject(new UnsendableError(String(error)));
      return;
    }
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new HangError(req, timeoutMs));
    }, timeoutMs);
    outgoing.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    try {
      outgoing.end(req.body);
    } catch (error) {
      clearTimeout(timer);
      outgoing.destroy();
      reject(new UnsendableError(String(error)));
    }
  });
}

/** JSON request helpers for the API. */
export function api(baseUrl: string) {
  const json = (method: string, path: string, headers: OutgoingHttpHeaders, body?: unknown) =>
    send(baseUrl, {
      method,
      path,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    baseUrl,
    startSession: (apiKey: string, member: string, identifierType = 'CARD_NUMBER') =>
      json('POST', `/client/users/${encodeURIComponent(member)}/sessions`, { 'x-api-key': apiKey, 'x-identifier-type': identifierType }),
    async session(apiKey: string, member: string, identifierType = 'CARD_NUMBER'): Promise<{ sessionToken: string; sessionId: string }> {
      const response = await this.startSession(apiKey, member, identifierType);
      if (response.status !== 201) throw new Error(`session start failed: ${response.status} ${response.text}`);
      return response.json as { sessionToken: string; sessionId: string };
    },
    listVouchers: (apiKey: string, token: string, member: string, query = '') =>
      json('GET', `/client/users/${encodeURIComponent(member)}/voucher-definitions${query}`, {
        'x-api-key': apiKey,
        authorization: `Bearer ${token}`,
      }),
    update: (apiKey: string, token: string, member: string, reservationToken: string, body: unknown) =>
      json(
        'PUT',
        `/client/users/${encodeURIComponent(member)}/reservations/${encodeURIComponent(reservationToken)}`,
        { 'x-api-key': apiKey, authorization: `Bearer ${token}` },
        body,
      ),
    readyz: () => send(baseUrl, { method: 'GET', path: '/readyz' }),
  };
}

export type Api = ReturnType<typeof api>;
