/**
 * A scripted `fetch` for the SDK's tests: each call takes the next reply.
 * It records every Request it receives (one per attempt), so tests can look
 * at the headers and bodies that would have gone over the wire.
 */
export type Reply = Response | Error | ((request: Request) => Response | Promise<Response>);

export interface FakeFetch {
  fetch: (request: Request) => Promise<Response>;
  requests: Request[];
}

export function fakeFetch(...replies: Reply[]): FakeFetch {
  const requests: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push(request);
    const reply = replies.shift();
    if (reply === undefined) throw new Error(`fakeFetch: no reply scripted for call ${requests.length}`);
    if (reply instanceof Error) throw reply;
    if (reply instanceof Response) return reply;
    return reply(request);
  };
  return { fetch, requests };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

/** What `fetch` throws when the connection fails (undici's shape). */
export function networkError(): TypeError {
  return new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:3000') });
}

/** A fetch reply that never answers, but rejects like real fetch when its signal aborts. */
export function hang(request: Request): Promise<Response> {
  return new Promise((_, reject) => {
    request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
  });
}

/** A fetch reply that never answers and ignores its signal (a careless custom fetch). */
export function hangDeaf(): Promise<Response> {
  return new Promise(() => undefined);
}

/** Headers arrive, then the body stalls forever. */
export function stalledBody(): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('[{"voucherDefinitionId":'));
    },
  });
  return new Response(stream, { status: 200, headers: { 'Content-Type': 'application/json' } });
}

/** A sleep that records its delays and returns at once: backoff without waiting. */
export function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
    },
  };
}

export const session = {
  sessionToken: 'st_9kq3ZbJ0m4W2yQ8vT1xH5cN7rL6pD0sA',
  sessionId: '3f6c1c9e-8f0a-4b7e-9a52-5d1e2c7b8a90',
  identifierType: 'CARD_NUMBER',
  expiresAt: '2026-11-21T21:00:00.000Z',
} as const;

export const voucher = {
  voucherDefinitionId: 'vd-0001',
  businessUnit: 'LCL',
  definitionName: '$5 off your order',
  rewardType: 'DOLLAR_OFF',
  rewardValue: 5,
  rewardMetadata: { amount: 5, unit: 'FLAT' },
  scope: 'CART',
  expiryRule: { type: 'ROLLING', rollingDays: 30 },
  creative: { 'en-CA': { shortDescription1: '$5 off', smallImageURI: 'https://cdn.example.com/v/5off-en.png' } },
  pointValue: 5000,
  redeemableValue: 5000,
} as const;

export const reservation = {
  reservationToken: 'rt-alice-1',
  reservationDuration: 900,
  availablePointBalance: 42500,
  pointBalance: 50000,
} as const;
