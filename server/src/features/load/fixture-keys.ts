import type { ApiKeyKind } from '../../domain/model';
import { fixtureKeyId } from '../../domain/secrets';
import type { FixtureClient } from './fixture-schema';

/** The secret API keys of a fixture's client, in order: `apiKey` first, then `apiKeys`. */
export function keysOfClient(client: FixtureClient): string[] {
  return [...(client.apiKey === undefined ? [] : [client.apiKey]), ...(client.apiKeys ?? [])];
}

/** One key of a fixture's client, of either kind, with its place in the fixture and its record's id. */
export interface FixtureKey {
  apiKey: string;
  kind: ApiKeyKind;
  origins: string[];
  keyId: string;
  /** JSON pointer of the key's value in the fixture. */
  path: string;
}

/**
 * Every key of a fixture's client: its secret keys (index 0 is `apiKey` when
 * given), then its publishable keys. Each kind's ids come from the client
 * and the key's place among its kind (`fixtureKeyId`).
 */
export function fixtureKeysOf(client: FixtureClient, clientIndex: number): FixtureKey[] {
  const at = `/clients/${clientIndex}`;
  const secretPath = (index: number) =>
    client.apiKey === undefined ? `${at}/apiKeys/${index}` : index === 0 ? `${at}/apiKey` : `${at}/apiKeys/${index - 1}`;
  return [
    ...keysOfClient(client).map((apiKey, index) => ({
      apiKey,
      kind: 'secret' as const,
      origins: [],
      keyId: fixtureKeyId(client.clientId, index),
      path: secretPath(index),
    })),
    ...(client.publishableKeys ?? []).map((key, index) => ({
      apiKey: key.apiKey,
      kind: 'publishable' as const,
      origins: [...key.origins],
      keyId: fixtureKeyId(client.clientId, index, 'publishable'),
      path: `${at}/publishableKeys/${index}/apiKey`,
    })),
  ];
}
