// Statuses whose response cannot have a body (the Response constructor throws).
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/**
 * A new Response with another body (or headers) but the same status, and the
 * same `url` and `redirected`: the constructor cannot set those two, and
 * callers log `response.url`, so they are copied as own properties.
 */
export function withBody(response: Response, body: BodyInit | null, headers: Headers = response.headers): Response {
  const copy = new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
  Object.defineProperties(copy, {
    url: { value: response.url, enumerable: true },
    redirected: { value: response.redirected, enumerable: true },
  });
  return copy;
}
