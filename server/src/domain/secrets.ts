import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 hex of a secret (API key or session token); what the store keeps. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
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
