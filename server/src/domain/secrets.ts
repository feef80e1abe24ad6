import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { base62Alphabet, composeGeneratedKey, generatedIdLength, generatedSecretLength, keyIdOf } from './api-key-format';
import type { ApiKeyKind } from './model';

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

/**
 * A new API key of `kind`, in the generated form (api-key-format.ts):
 * `lsk_` or `lpk_`, 12 random hex digits (the key's public id, `key_` and
 * the same digits: it may appear in logs and listings), 256 random bits in
 * base62, and a checksum. Only the key's digest (`hashSecret`) is ever
 * stored.
 */
export function newApiKey(kind: ApiKeyKind): { keyId: string; apiKey: string } {
  const idHex = randomBytes(generatedIdLength / 2).toString('hex');
  return { keyId: keyIdOf(idHex), apiKey: composeGeneratedKey(kind, idHex, randomBase62(generatedSecretLength)) };
}

/**
 * `length` characters of base62, each uniform: a random byte counts only
 * below 248 (4 × 62), then its remainder by 62 is the digit, so that no digit
 * comes up more often than another (a byte's remainder over all 256 values
 * would favour the first 8).
 */
function randomBase62(length: number): string {
  const accepted = 4 * base62Alphabet.length;
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte < accepted && out.length < length) out += base62Alphabet[byte % base62Alphabet.length];
    }
  }
  return out;
}

/**
 * The public id of a fixture's key: derived from the client, the key's kind
 * and its place among the client's keys of that kind (never from the
 * secret), so that loading the same fixture again replaces the same key
 * record.
 */
export function fixtureKeyId(clientId: string, index: number, kind: ApiKeyKind = 'secret'): string {
  const place = kind === 'secret' ? `${clientId}\u0000${index}` : `${clientId}\u0000${kind}\u0000${index}`;
  return `key_fx${hash('sha256', place, 'hex').slice(0, 10)}`;
}

/** A random session token: 192 bits, URL-safe, never derived from ids. */
export function newSessionToken(): string {
  return `st_${randomBytes(24).toString('base64url')}`;
}

/**
 * What stands for a member's id (its correlation id) in log lines and spans
 * by default: HMAC-SHA256 under the deployment's log key, 128 bits in hex.
 * Keyed, so that nobody who reads the logs can test guesses of ids (card
 * numbers, e-mail addresses) against it; `loyalty-admin log-hash` gives an
 * operator one member's, to find its requests.
 */
export function memberIdHash(key: Uint8Array, correlationId: string): string {
  return createHmac('sha256', key).update(correlationId, 'utf8').digest('hex').slice(0, 32);
}

/** A new log key (see `memberIdHash`): 256 random bits. */
export function newLogKey(): Buffer {
  return randomBytes(32);
}
