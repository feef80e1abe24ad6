import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 hex of a secret (API key or session token), its UTF-8 bytes; what
 * the store keeps. One-shot `crypto.hash`: no Hash object per call (this runs
 * twice per request).
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A random session token: 192 bits, URL-safe, never derived from ids. */
export function newSessionToken(): string {
  return `st_${randomBytes(24).toString('base64url')}`;
}
