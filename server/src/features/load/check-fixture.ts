import { apiKeyForm, apiKeyPrefixes } from '../../domain/api-key-format';
import { keyOriginsProblem } from '../../domain/origins';
import type { FixtureIssue } from './fixture-error';
import { fixtureKeysOf } from './fixture-keys';
import { reservationKey } from './fixture-records';
import type { Fixture, FixtureClient, FixtureMember, FixtureReservation } from './fixture-schema';

/**
 * What a schema cannot say about a fixture, judged on the fixture alone (no
 * store): duplicate keys in a collection, the same API key twice, keys that
 * could never authenticate, a default business unit not enabled, origins,
 * empty households, and each reservation's sums, dates and client. Every
 * issue found, in the fixture's order; none when it is sound.
 */
export function checkFixture(fixture: Fixture): FixtureIssue[] {
  const clients = fixture.clients ?? [];
  const reservations = fixture.reservations ?? [];
  return [
    ...duplicateIssues(clients, '/clients', 'clientId', (c) => c.clientId),
    // A key is a secret: the message names the other place, never the value.
    ...duplicateKeyIssues(clients),
    ...keyFormIssues(clients),
    ...duplicateIssues(fixture.members ?? [], '/members', 'correlationId', (m) => m.correlationId),
    ...duplicateIssues(fixture.catalogueItems ?? [], '/catalogueItems', 'productCode', (i) => i.productCode),
    ...duplicateIssues(fixture.redemptions ?? [], '/redemptions', 'redemptionId', (r) => r.redemptionId),
    ...duplicateIssues(fixture.voucherDefinitions ?? [], '/voucherDefinitions', 'voucherDefinitionId', (d) => d.voucherDefinitionId),
    ...duplicateIssues(reservations, '/reservations', 'reservationToken', reservationKey),
    ...clients.flatMap(clientIssues),
    ...(fixture.members ?? []).flatMap(memberIssues),
    ...reservations.flatMap((r, i) => reservationIssues(r, `/reservations/${i}`, clients)),
  ];
}

/** Same key twice in one collection: the later record would silently win. */
function duplicateIssues<T>(records: T[], at: string, field: string, keyOf: (record: T) => string): FixtureIssue[] {
  const firstIndex = new Map<string, number>();
  const issues: FixtureIssue[] = [];
  records.forEach((record, index) => {
    const key = keyOf(record);
    const first = firstIndex.get(key);
    if (first === undefined) {
      firstIndex.set(key, index);
      return;
    }
    issues.push({ path: `${at}/${index}/${field}`, message: `duplicate key ${JSON.stringify(key)}, first at ${at}/${first}` });
  });
  return issues;
}

/** The same key given twice, in one client or two, of one kind or two: it could authenticate only one of them. */
function duplicateKeyIssues(clients: FixtureClient[]): FixtureIssue[] {
  const first = new Map<string, string>();
  const issues: FixtureIssue[] = [];
  clients.forEach((client, clientIndex) => {
    for (const { apiKey, path } of fixtureKeysOf(client, clientIndex)) {
      const earlier = first.get(apiKey);
      if (earlier === undefined) first.set(apiKey, path);
      else issues.push({ path, message: `duplicate value, first at ${earlier}` });
    }
  });
  return issues;
}

/**
 * A key with a generated key's prefix (`lsk_`, `lpk_`) must be a whole
 * generated key of the kind it is given as: the server refuses any other
 * value with those prefixes before reading anything (api-key-format.ts), so
 * such a key could never authenticate, and a generated key of the other kind
 * would tell the SDK and secret scanners the wrong kind. Never the value.
 */
function keyFormIssues(clients: FixtureClient[]): FixtureIssue[] {
  return clients.flatMap((client, clientIndex) =>
    fixtureKeysOf(client, clientIndex).flatMap(({ apiKey, kind, path }): FixtureIssue[] => {
      const form = apiKeyForm(apiKey);
      if (form.form === 'refused') {
        return [{ path, message: `starts as a generated key (${apiKeyPrefixes.secret}, ${apiKeyPrefixes.publishable}) but is not one, or its checksum is wrong: it could never authenticate` }];
      }
      if (form.form === 'generated' && form.kind !== kind) {
        return [{ path, message: `is a generated ${form.kind} key (${apiKeyPrefixes[form.kind]}), given as a ${kind} key` }];
      }
      return [];
    }),
  );
}

function clientIssues(client: FixtureClient, index: number): FixtureIssue[] {
  const issues: FixtureIssue[] = [];
  const unit = client.defaultBusinessUnit;
  if (unit != null && !client.enabledBusinessUnits.includes(unit)) {
    issues.push({ path: `/clients/${index}/defaultBusinessUnit`, message: 'must be one of enabledBusinessUnits' });
  }
  (client.publishableKeys ?? []).forEach((key, keyIndex) => {
    const problem = keyOriginsProblem(key.origins);
    if (problem) issues.push({ path: `/clients/${index}/publishableKeys/${keyIndex}/origins`, message: problem });
  });
  return issues;
}

function memberIssues(member: FixtureMember, index: number): FixtureIssue[] {
  // walletIdOf treats "" as "no household"; a stored "" would make a household nobody can find.
  if (member.householdId !== '') return [];
  return [{ path: `/members/${index}/householdId`, message: 'must not be empty (use null for no household)' }];
}

function reservationIssues(r: FixtureReservation, at: string, clients: FixtureClient[]): FixtureIssue[] {
  const issues = duplicateIssues(r.contributions, `${at}/contributions`, 'correlationId', (c) => c.correlationId);
  const sum = r.contributions.reduce((total, c) => total + c.points, 0);
  if (sum !== r.reservationAmount) {
    issues.push({
      path: `${at}/contributions`,
      message: `points sum to ${sum}, must equal reservationAmount (${r.reservationAmount})`,
    });
  }
  for (const field of ['expiresAt', 'createdAt'] as const) {
    const value = r[field];
    if (value !== undefined && Number.isNaN(Date.parse(value))) {
      issues.push({ path: `${at}/${field}`, message: 'must be a date-time' });
    }
  }
  // The store port cannot look a client up by id, so the default expiry needs the client here.
  if (r.expiresAt === undefined && !clients.some((c) => c.clientId === r.clientId)) {
    issues.push({
      path: `${at}/clientId`,
      message: `client ${JSON.stringify(r.clientId)} is not in this fixture: include it or give expiresAt`,
    });
  }
  return issues;
}
