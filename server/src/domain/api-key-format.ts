import { crc32 } from 'node:zlib';
import type { ApiKeyKind } from './model';

/*
 * The form of the API keys this server generates (`loyalty-admin keys
 * create|roll`), which says the key's kind and carries a checksum:
 *
 *   lsk_3f9a0c6d2e1b_<43 base62 characters><6 base62 characters>
 *   └┬─┘└────┬─────┘ └───────┬────────────┘└───────┬─────────┘
 *  kind   key id         the secret            CRC32 of all before
 *
 * - `lsk_` a secret key, `lpk_` a publishable key: a secret scanner (or the
 *   SDK in a page) tells a leaked secret key from a key meant to be public
 *   by its first four characters. No other vendor's keys start so.
 * - The key id: 12 hex digits, the key's public id (`key_` and the same
 *   digits: `keyId`, in listings and the access log), so that a key found
 *   leaked names the key to revoke.
 * - The secret: 43 characters of 0-9A-Za-z drawn uniformly, 256 bits
 *   (43 × log2 62 = 256.03). Base62 rather than base64url: no `-` or `_`
 *   inside it, so the whole key is one word to a double-click and to a
 *   scanner's `\b`, and its regular expression stays simple.
 * - The checksum: CRC32 (IEEE, as zlib's) of everything before it, prefix
 *   included, as 6 base62 digits (62^6 > 2^32), most significant first. As
 *   in GitHub's tokens, it lets the server refuse a mistyped, truncated or
 *   made-up key without reading the store, and a scanner drop look-alikes
 *   offline. It is no secret and no signature: anyone can compute it. CRC32
 *   finds every change of one character (a burst under 32 bits), including
 *   `lsk_` changed to `lpk_`.
 *
 * Keys of any other form (`key_<id>.<secret>`, made before this form, and
 * fixtures' free-form keys) are looked up as before. The two prefixes are
 * kept for generated keys (a fixture's key that starts with one must be a
 * generated key too: features/load/check-fixture.ts), so a value that
 * starts with one but is not a whole, checksummed key matches no key: it is
 * refused unread, and a scanner's match is always a real key's form.
 */

/** The first characters of a generated key, by its kind. */
export const apiKeyPrefixes: Readonly<Record<ApiKeyKind, string>> = { secret: 'lsk_', publishable: 'lpk_' };

/** The digits of the secret and the checksum, in the order of their values. */
export const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Characters of a generated key's secret: 256 bits. */
export const generatedSecretLength = 43;

const checksumLength = 6;

/** Hex digits of a generated key's id. */
export const generatedIdLength = 12;

/** The regular expression of a generated key of `kind`, without anchors (a scanner's "secret format"). */
export function generatedKeyPattern(kind: ApiKeyKind): string {
  return `${apiKeyPrefixes[kind]}[0-9a-f]{${generatedIdLength}}_[0-9A-Za-z]{${generatedSecretLength + checksumLength}}`;
}

const generatedShape = new RegExp(`^l([sp])k_([0-9a-f]{${generatedIdLength}})_[0-9A-Za-z]{${generatedSecretLength + checksumLength}}$`);

/** The public id of a generated key, from the id part of the key. */
export function keyIdOf(idHex: string): string {
  return `key_${idHex}`;
}

/** `body`'s CRC32 as `checksumLength` base62 digits. */
function checksumOf(body: string): string {
  let value = crc32(body);
  let digits = '';
  for (let i = 0; i < checksumLength; i++) {
    digits = base62Alphabet[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

/**
 * A generated key of `kind`: its prefix, id and secret, then their
 * checksum. `idHex` and `secret` come from a random source (secrets.ts
 * `newApiKey`); this only puts them together.
 */
export function composeGeneratedKey(kind: ApiKeyKind, idHex: string, secret: string): string {
  const body = `${apiKeyPrefixes[kind]}${idHex}_${secret}`;
  return `${body}${checksumOf(body)}`;
}

/**
 * What a value sent as an API key is, by its form alone (no store):
 * - `generated`: a whole key of the generated form, checksum right; its
 *   kind and its public id;
 * - `refused`: starts with a generated key's prefix but is not one (wrong
 *   length or character, wrong checksum): no key can match it;
 * - `other`: any other form (keys made before, fixtures' keys): only the
 *   store knows.
 */
export type ApiKeyForm = { form: 'generated'; kind: ApiKeyKind; keyId: string } | { form: 'refused' } | { form: 'other' };

export function apiKeyForm(value: string): ApiKeyForm {
  if (!value.startsWith(apiKeyPrefixes.secret) && !value.startsWith(apiKeyPrefixes.publishable)) return { form: 'other' };
  const shape = generatedShape.exec(value);
  const bodyLength = value.length - checksumLength;
  if (!shape || checksumOf(value.slice(0, bodyLength)) !== value.slice(bodyLength)) return { form: 'refused' };
  return { form: 'generated', kind: shape[1] === 's' ? 'secret' : 'publishable', keyId: keyIdOf(shape[2]!) };
}

/** Whether `value` is refused by its form alone, before any read: see `apiKeyForm`. */
export function isRefusedByForm(value: string): boolean {
  return apiKeyForm(value).form === 'refused';
}
