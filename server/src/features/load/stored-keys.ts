import { maxLivePublishableKeys } from '../../domain/limits';
import type { ApiKeyRecord } from '../../domain/model';
import type { FixtureStore } from '../../store/port';
import type { FixtureIssue } from './fixture-error';
import { fixtureKeysOf } from './fixture-keys';
import { toApiKeyRecords } from './fixture-records';
import type { Fixture } from './fixture-schema';

/* The fixture's API keys against those the store holds. */

/**
 * The fixture's keys the store does not hold as they are. A key already
 * stored with the same secret keeps its record, its creation, expiry and
 * revocation: loading a fixture again (every start with SEED_FILE) must
 * never bring back a key an operator revoked or let expire. Only its
 * origins follow the fixture.
 */
export async function newFixtureKeys(store: FixtureStore, fixture: Fixture, now: Date): Promise<ApiKeyRecord[]> {
  const fresh: ApiKeyRecord[] = [];
  for (const [clientIndex, client] of (fixture.clients ?? []).entries()) {
    const stored = new Map((await store.listApiKeys(client.clientId)).map((key) => [key.keyId, key]));
    for (const key of toApiKeyRecords(client, clientIndex, now)) {
      const same = stored.get(key.keyId);
      if (same?.digest !== key.digest) fresh.push(key);
      else if (!sameOrigins(same.origins, key.origins)) fresh.push({ ...same, origins: key.origins });
    }
  }
  return fresh;
}

function sameOrigins(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((origin, index) => origin === b[index]);
}

/**
 * The deployment's live publishable keys stay within `maxLivePublishableKeys`
 * (domain/limits.ts) once the fixture is loaded: those stored that the
 * fixture does not name, and the fixture's own (counted as live).
 */
export async function publishableKeyIssues(store: FixtureStore, fixture: Fixture, now: Date): Promise<FixtureIssue[]> {
  const named = new Set<string>();
  (fixture.clients ?? []).forEach((client, clientIndex) => {
    for (const key of fixtureKeysOf(client, clientIndex)) if (key.kind === 'publishable') named.add(key.keyId);
  });
  if (named.size === 0) return [];
  const kept = (await store.listLivePublishableKeys(now, maxLivePublishableKeys + 1)).filter((key) => !named.has(key.keyId));
  const total = kept.length + named.size;
  if (total <= maxLivePublishableKeys) return [];
  return [{ path: '/clients', message: `would make ${total} live publishable keys; a deployment holds at most ${maxLivePublishableKeys} (revoke some first)` }];
}
