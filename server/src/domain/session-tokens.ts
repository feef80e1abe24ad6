import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { identifierTypes, walletIdOf, type IdentifierType, type MemberSession } from './model';

/*
 * Sealed session tokens: what a session's checks need, encrypted and
 * authenticated (AES-256-GCM) under a session key that every process holds,
 * so that any process checks a token without reading the store:
 *
 *   st2.<kid>.<base64url: nonce (12 bytes) | ciphertext | tag (16 bytes)>
 *
 * Only the key's id (`kid`) is in clear: the plaintext (the client, the
 * member, the identifier type, the API key that started it, when it was
 * issued and expires, the member's wallet when it is a household's, and a
 * random 128-bit session id) is unreadable without the key, so no member id
 * appears in the token or in any decoding of it; the prefix and kid are the
 * associated data, so neither can be swapped. A token nobody issued, or one
 * with any character changed, fails the tag and is refused without a read.
 * Encryption rather than a signature over readable data: a signed payload
 * (a JWT) would show the member's id to whoever holds the token.
 *
 * The nonce is random (96 bits): a key seals far fewer than the 2^32 tokens
 * past which random GCM nonces would risk repeating (NIST SP 800-38D, 8.3);
 * keys roll long before that.
 */

/** How a sealed token starts: tokens of earlier releases (`st_...`) are random, and looked up. */
export const sealedTokenPrefix = 'st2.';

/** A sealed token is never longer than this (a 128-character member id, a long client id and household id fit). */
export const maxSealedTokenLength = 1024;

const nonceBytes = 12;
const tagBytes = 16;
/** Bytes of a session id: 128 random bits. */
const sessionIdBytes = 16;

/** A session key as the sealing needs it: its id and its AES-256 key. */
export interface SealingKey {
  kid: string;
  key: KeyObject;
}

/** A sealing key of the 32 bytes of `secret`. */
export function sealingKey(kid: string, secret: Uint8Array): SealingKey {
  if (secret.length !== 32) throw new RangeError(`a session key is 32 bytes, got ${secret.length}`);
  return { kid, key: createSecretKey(secret) };
}

/** A new session key's secret: 256 random bits. */
export function newSessionKeySecret(): Buffer {
  return randomBytes(32);
}

/** A new session key's public id: 48 random bits, URL-safe, no `.`. */
export function newSessionKeyId(): string {
  return randomBytes(6).toString('base64url');
}

/** What a sealed token holds, and a session it opens to. */
export interface SealedSession extends MemberSession {
  issuedAt: Date;
}

/** What a new session is, before it is sealed. */
export type SessionToSeal = Omit<SealedSession, 'sessionId'>;

/** The plaintext, compact: one-letter fields, times in epoch ms, the identifier type by its place. */
interface Plain {
  c: string;
  m: string;
  t: number;
  k: string;
  i: number;
  e: number;
  s: string;
  /** The wallet, only when it is not the member's own (a household's). */
  w?: string;
}

/**
 * Seals a new session under `key`: its token, and the session with its new
 * random id (a GUID made of its 128 random bits, as the API shows it).
 */
export function sealSession(key: SealingKey, session: SessionToSeal): { token: string; session: SealedSession } {
  const sid = randomBytes(sessionIdBytes);
  const plain: Plain = {
    c: session.clientId,
    m: session.correlationId,
    t: identifierTypes.indexOf(session.identifierType),
    k: session.keyId,
    i: session.issuedAt.getTime(),
    e: session.expiresAt.getTime(),
    s: sid.toString('base64url'),
    ...(session.walletId !== undefined && session.walletId !== walletIdOf(session.correlationId, null) && { w: session.walletId }),
  };
  const header = `${sealedTokenPrefix}${key.kid}.`;
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv('aes-256-gcm', key.key, nonce);
  cipher.setAAD(Buffer.from(header));
  const sealed = Buffer.concat([nonce, cipher.update(JSON.stringify(plain), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { token: header + sealed.toString('base64url'), session: { ...session, sessionId: guidOf(sid) } };
}

/** The kid of a sealed token, or null when `token` does not have the sealed form. */
export function sealedKidOf(token: string): string | null {
  if (!token.startsWith(sealedTokenPrefix) || token.length > maxSealedTokenLength) return null;
  const dot = token.indexOf('.', sealedTokenPrefix.length);
  return dot > sealedTokenPrefix.length ? token.slice(sealedTokenPrefix.length, dot) : null;
}

const sealedForm = /^st2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The session a sealed token holds, opened with `key` (the key its kid
 * names), or null: a token of another form, a wrong tag (forged, altered,
 * or sealed under another key), or a plaintext that is no session.
 */
export function openSealedSession(key: SealingKey, token: string): SealedSession | null {
  if (sealedKidOf(token) !== key.kid || !sealedForm.test(token)) return null;
  const header = `${sealedTokenPrefix}${key.kid}.`;
  const encoded = token.slice(header.length);
  const sealed = Buffer.from(encoded, 'base64url');
  // One spelling per token: the last character's unused bits would otherwise let a changed character open the same session.
  if (sealed.length <= nonceBytes + tagBytes || sealed.toString('base64url') !== encoded) return null;
  const decipher = createDecipheriv('aes-256-gcm', key.key, sealed.subarray(0, nonceBytes));
  decipher.setAAD(Buffer.from(header));
  decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes));
  let text: string;
  try {
    text = Buffer.concat([decipher.update(sealed.subarray(nonceBytes, sealed.length - tagBytes)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
  return sessionOf(JSON.parse(text) as Plain);
}

function sessionOf(plain: Plain): SealedSession | null {
  const identifierType: IdentifierType | undefined = identifierTypes[plain.t];
  if (identifierType === undefined) return null;
  return {
    sessionId: guidOf(Buffer.from(plain.s, 'base64url')),
    clientId: plain.c,
    keyId: plain.k,
    correlationId: plain.m,
    identifierType,
    issuedAt: new Date(plain.i),
    expiresAt: new Date(plain.e),
    walletId: plain.w ?? walletIdOf(plain.m, null),
  };
}

/** A GUID (UUID version 4 form) of 16 random bytes: the session id the API shows and the ended list keys. */
function guidOf(bytes: Buffer): string {
  const b = Buffer.from(bytes);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
