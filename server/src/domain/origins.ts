/**
 * Web origins as the API compares them: exact strings, written as browsers
 * send them in `Origin` (scheme, lower-case host, the port only when it is
 * not the scheme's default; no path, no trailing slash). `CORS_ORIGINS` and
 * a publishable key's origins are both checked here, so that an entry a
 * browser would never send is refused when it is given, not silently never
 * matched.
 */

/** Origins one publishable key may name. */
export const maxOriginsPerKey = 10;

/** Longer than any origin a browser sends (a DNS name is at most 253 characters). */
export const maxOriginLength = 300;

/** Why `entry` is not an origin as browsers serialise it, or null when it is one. */
export function originProblem(entry: string): string | null {
  if (entry === '') return 'an empty entry';
  if (entry.length > maxOriginLength) return `an origin over ${maxOriginLength} characters`;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `${JSON.stringify(entry)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${JSON.stringify(entry)} is not http:// or https://`;
  if (url.origin !== entry) return `${JSON.stringify(entry)} is not written as browsers send it (${url.origin})`;
  return null;
}

/**
 * Why a publishable key's origins cannot be used, or null: one at least,
 * at most `maxOriginsPerKey`, each an origin, none twice.
 */
export function keyOriginsProblem(origins: readonly string[]): string | null {
  if (origins.length === 0) return 'a publishable key needs at least one origin';
  if (origins.length > maxOriginsPerKey) return `a publishable key names at most ${maxOriginsPerKey} origins (got ${origins.length})`;
  const problems = origins.map(originProblem).filter((problem): problem is string => problem !== null);
  if (problems.length > 0) return `origins must be exact origins such as https://app.example.com: ${problems.join('; ')}`;
  const repeated = origins.find((origin, index) => origins.indexOf(origin) !== index);
  return repeated === undefined ? null : `${JSON.stringify(repeated)} is named twice`;
}
