/**
 * HTTP for tests of the running app: `send` for any request, `apiClient` for
 * the API's operations. Requests go through fetch, so they are the ones a
 * well-behaved client sends (the reliability tests' raw client sends the rest).
 */

export interface SendInit {
  /** `x-api-key`; none when absent or null. */
  apiKey?: string | null;
  /** `Authorization: Bearer <bearer>`. */
  bearer?: string;
  headers?: Record<string, string>;
  /** Sent as `application/json` unless a content-type header says otherwise. */
  json?: unknown;
  /** Sent exactly as given. */
  rawBody?: string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON. */
  body: any;
}

export async function send(baseUrl: string, method: string, path: string, init: SendInit = {}): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  if (init.apiKey != null) headers['x-api-key'] = init.apiKey;
  if (init.bearer !== undefined) headers.authorization = `Bearer ${init.bearer}`;
  let body = init.rawBody;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, init.headers);
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.startsWith('application/json') ?? false;
  return { status: response.status, headers: response.headers, text, body: isJson && text !== '' ? JSON.parse(text) : undefined };
}

/** The API's operations by name: JSON in, status and JSON out. */
export function apiClient(baseUrl: string) {
  const call = (
    method: string,
    path: string,
    init: { apiKey?: string; token?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
  ): Promise<TestResponse> =>
    send(baseUrl, method, path, {
      ...(init.apiKey && { apiKey: init.apiKey }),
      ...(init.token && { bearer: init.token }),
      ...(init.rawBody !== undefined && { rawBody: init.rawBody }),
      ...(init.body !== undefined && { json: init.body }),
      ...(init.headers && { headers: init.headers }),
    });

  return {
    call,
    async startSession(apiKey: string, correlationId: string, identifierType = 'CARD_NUMBER'): Promise<string> {
      return (await this.session(apiKey, correlationId, identifierType)).sessionToken;
    },
    async session(apiKey: string, correlationId: string, identifierType = 'CARD_NUMBER') {
      const response = await call('POST', `/client/users/${correlationId}/sessions`, {
        apiKey,
        headers: { 'x-identifier-type': identifierType },
      });
      if (response.status !== 201) throw new Error(`session start failed: ${response.status} ${response.text}`);
      return response.body as { sessionToken: string; sessionId: string };
    },
    listVouchers(apiKey: string, token: string, correlationId: string, businessUnit?: string) {
      const query = businessUnit === undefined ? '' : `?businessUnit=${encodeURIComponent(businessUnit)}`;
      return call('GET', `/client/users/${correlationId}/voucher-definitions${query}`, { apiKey, token });
    },
    updateReservation(apiKey: string, token: string, correlationId: string, reservationToken: string, body: unknown) {
      return call('PUT', `/client/users/${correlationId}/reservations/${reservationToken}`, { apiKey, token, body });
    },
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
