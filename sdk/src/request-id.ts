/** Header that carries the request id, in both directions. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * A random version 4 UUID. `crypto.randomUUID` exists in Node 20, edge
 * runtimes and browsers, but browsers only expose it in secure contexts
 * (https), so fall back to `getRandomValues`, which every one of them has.
 * A request id is not a secret; it only has to be unique.
 */
export function newRequestId(): string {
  const webCrypto = globalThis.crypto;
  if (typeof webCrypto?.randomUUID === 'function') return webCrypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof webCrypto?.getRandomValues === 'function') webCrypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// Responses are immutable and openapi-fetch does not return the request, so
// the id sent is remembered per response for `requestIdOf`.
const sentIds = new WeakMap<Response, string>();

export function rememberRequestId(response: Response, requestId: string): void {
  sentIds.set(response, requestId);
}

/**
 * The `X-Request-Id` this SDK sent for the call that produced `response`
 * (the same id on every retry of the call). Useful with `client.raw`; the
 * SDK's own methods return it as `requestId`. Unlike the response header, it
 * does not depend on the server echoing the id or on CORS exposing it.
 */
export function requestIdOf(response: Response): string | undefined {
  return sentIds.get(response);
}
