import { readFile } from 'node:fs/promises';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { systemClock, type Clock } from '../domain/clock';
import { moveOf, withMove } from '../domain/member-moves';
import type { ApiKeyKind, ApiKeyRecord, ClientRecord, MemberMove, MemberRecord, ReservationRecord, VoucherDefinitionRecord, Wallet } from '../domain/model';
import { isLiveReservation, walletIdOf } from '../domain/model';
import { apiKeyForm, apiKeyPrefixes } from '../domain/api-key-format';
import { fixtureKeyId, hashSecret } from '../domain/secrets';
import {
  clientDefaults,
  fixtureSchema,
  type Fixture,
  type FixtureClient,
  type FixtureMember,
  type FixtureReservation,
  type FixtureVoucherDefinition,
} from './fixture-schema';
import { defaultWalletLimits, maxLivePublishableKeys, type WalletLimits } from '../domain/limits';
import { keyOriginsProblem } from '../domain/origins';
import { deepCopy } from './copy';
import { compareKeys } from './key-order';
import { defaultMoveLeaseMs, finishMove, MemberMoves, type PlannedMove, type RefusedMove } from './member-moves';
import type { FixtureStore } from './port';
import { updateWallet } from './wallet-update';

export type {
  Fixture,
  FixtureCatalogueItem,
  FixtureClient,
  FixtureMember,
  FixturePublishableKey,
  FixtureRedemption,
  FixtureReservation,
  FixtureVoucherDefinition,
} from './fixture-schema';
export { clientDefaults } from './fixture-schema';

/**
 * The demo data `npm start` serves. Resolved from this file's folder so it
 * works from `server/src/store` (tests) and `server/dist/store` (built).
 */
export const demoFixturePath = path.resolve(__dirname, '..', '..', 'fixtures', 'demo.json');

const memberSettings = fixtureSchema.properties.members.items.properties;

// ---------------------------------------------------------------------------
// Errors

/** One problem of a fixture: a JSON pointer into it and what is wrong there. */
export interface FixtureIssue {
  path: string;
  message: string;
}

/** A listing longer than this helps nobody; the count of the rest is given. */
const maxListedIssues = 50;

/** A fixture that cannot be loaded; the message lists every offending path. */
export class FixtureError extends Error {
  constructor(
    readonly issues: FixtureIssue[],
    source = 'fixture',
  ) {
    super(formatIssues(issues, source));
    this.name = 'FixtureError';
  }
}

function formatIssues(issues: FixtureIssue[], source: string): string {
  const lines = issues.slice(0, maxListedIssues).map((issue) => `  ${issue.path}: ${issue.message}`);
  if (issues.length > maxListedIssues) lines.push(`  ... and ${issues.length - maxListedIssues} more`);
  return [`Invalid ${source}:`, ...lines].join('\n');
}

/** JSON pointer of a child, escaped as RFC 6901 asks. */
function pointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

// ---------------------------------------------------------------------------
// Parsing

let compiled: ValidateFunction<Fixture> | undefined;

/** Compiled once, on first use: start-up without a fixture never pays for it. */
function validator(): ValidateFunction<Fixture> {
  if (!compiled) {
    // allowUnionTypes: the format uses `type: [x, "null"]`, which strict mode would only warn about.
    const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true });
    addFormats(ajv);
    compiled = ajv.compile<Fixture>(fixtureSchema);
  }
  return compiled;
}

/** Points at the offending property itself, not its parent, where ajv knows it. */
function issueOfAjvError(error: ErrorObject): FixtureIssue {
  const at = error.instancePath;
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { path: pointer(at, params.missingProperty), message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return { path: pointer(at, params.additionalProperty), message: 'is not an allowed property' };
  }
  return { path: at || '/', message: error.message ?? `fails ${error.keyword}` };
}

function uniqueIssues(issues: FixtureIssue[]): FixtureIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Validates a parsed JSON value against the fixture schema, then checks what
 * a schema cannot say (references inside the fixture, sums, duplicate keys).
 * Returns a copy; throws `FixtureError` listing every offending path.
 */
export function parseFixture(json: unknown, source = 'fixture'): Fixture {
  const validate = validator();
  if (!validate(json)) {
    throw new FixtureError(uniqueIssues((validate.errors ?? []).map(issueOfAjvError)), source);
  }
  const issues = semanticIssues(json);
  if (issues.length > 0) throw new FixtureError(issues, source);
  return deepCopy(json);
}

/** Reads and parses a fixture file; every failure names the file. */
export async function readFixtureFile(filePath: string): Promise<Fixture> {
  const source = `fixture file ${filePath}`;
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'read error';
    throw new FixtureError([{ path: '/', message: `cannot read the file (${code})` }], source);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new FixtureError([{ path: '/', message: `invalid JSON: ${(error as Error).message}` }], source);
  }
  return parseFixture(json, source);
}

// ---------------------------------------------------------------------------
// Checks a schema cannot express (fixture only, no store needed)

function semanticIssues(fixture: Fixture): FixtureIssue[] {
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

/** The secret API keys of a fixture's client, in order: `apiKey` first, then `apiKeys`. */
export function keysOfClient(client: FixtureClient): string[] {
  return [...(client.apiKey === undefined ? [] : [client.apiKey]), ...(client.apiKeys ?? [])];
}

/** One key of a fixture's client, of either kind, with its place in the fixture and its record's id. */
interface FixtureKey {
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
function fixtureKeysOf(client: FixtureClient, clientIndex: number): FixtureKey[] {
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

/** A reservation is identified by client, member and token together. */
function reservationKey(r: { clientId: string; correlationId: string; reservationToken: string }): string {
  return JSON.stringify([r.clientId, r.correlationId, r.reservationToken]);
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

// ---------------------------------------------------------------------------
// Records with defaults

/**
 * The keys of a fixture's client, with ids of their own (`fixtureKeyId`):
 * loading the same fixture again replaces the same records, a key changed in
 * the fixture replaces the one at its place. Created at load time, no expiry.
 */
function toApiKeyRecords(client: FixtureClient, clientIndex: number, now: Date): ApiKeyRecord[] {
  return fixtureKeysOf(client, clientIndex).map((key) => ({
    keyId: key.keyId,
    clientId: client.clientId,
    kind: key.kind,
    origins: key.origins,
    digest: hashSecret(key.apiKey),
    createdAt: new Date(now.getTime()),
    expiresAt: null,
    revokedAt: null,
  }));
}

/**
 * The fixture's keys the store does not hold as they are. A key already
 * stored with the same secret keeps its record, its creation, expiry and
 * revocation: loading a fixture again (every start with SEED_FILE) must
 * never bring back a key an operator revoked or let expire. Only its
 * origins follow the fixture.
 */
async function newFixtureKeys(store: FixtureStore, fixture: Fixture, now: Date): Promise<ApiKeyRecord[]> {
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
async function publishableKeyIssues(store: FixtureStore, fixture: Fixture, now: Date): Promise<FixtureIssue[]> {
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

function toClientRecord(client: FixtureClient): ClientRecord {
  return {
    clientId: client.clientId,
    enabledBusinessUnits: [...client.enabledBusinessUnits],
    defaultBusinessUnit: client.defaultBusinessUnit ?? clientDefaults.defaultBusinessUnit,
    vouchersEnabled: client.vouchersEnabled ?? clientDefaults.vouchersEnabled,
    sessionTtlSeconds: client.sessionTtlSeconds ?? clientDefaults.sessionTtlSeconds,
    reservationDurationSeconds: client.reservationDurationSeconds ?? clientDefaults.reservationDurationSeconds,
    extendedDurationSeconds: client.extendedDurationSeconds ?? clientDefaults.extendedDurationSeconds,
    redemptionTiers: client.redemptionTiers ? [...client.redemptionTiers] : clientDefaults.redemptionTiers,
    dailyRedemptionCap: client.dailyRedemptionCap ?? clientDefaults.dailyRedemptionCap,
  };
}

function toMemberRecord(member: FixtureMember): MemberRecord {
  const householdId = member.householdId ?? null;
  return {
    correlationId: member.correlationId,
    walletId: walletIdOf(member.correlationId, householdId),
    householdId,
    eligibleForRedemption: member.eligibleForRedemption ?? memberSettings.eligibleForRedemption.default,
    privileges: [...(member.privileges ?? memberSettings.privileges.default)],
  };
}

function toVoucherDefinitionRecord(definition: FixtureVoucherDefinition): VoucherDefinitionRecord {
  const copy = deepCopy(definition);
  return { ...copy, pointValue: copy.pointValue ?? null, redeemableValue: copy.redeemableValue ?? null };
}

/** `durationSeconds` is the client's; the semantic checks ensure it is known when `expiresAt` is absent. */
function toReservationRecord(r: FixtureReservation, durationSeconds: number | undefined, now: Date): ReservationRecord {
  return {
    reservationToken: r.reservationToken,
    clientId: r.clientId,
    correlationId: r.correlationId,
    identifierType: r.identifierType,
    reservationAmount: r.reservationAmount,
    contributions: r.contributions.map((c) => ({ correlationId: c.correlationId, points: c.points })),
    expiresAt: r.expiresAt === undefined ? defaultExpiry(r, durationSeconds, now) : new Date(r.expiresAt),
    createdAt: r.createdAt === undefined ? new Date(now.getTime()) : new Date(r.createdAt),
    excludedFromCap: false,
  };
}

function defaultExpiry(r: FixtureReservation, durationSeconds: number | undefined, now: Date): Date {
  if (durationSeconds === undefined) throw new Error(`reservation ${r.reservationToken}: no expiresAt and no client to default it`);
  return new Date(now.getTime() + durationSeconds * 1000);
}

// ---------------------------------------------------------------------------
// Loading

/** What one wallet receives from the fixture. */
interface WalletChange {
  balances: Map<string, number>;
  /** Members whose balance arrives from another wallet (a move), by the wallet they leave. */
  arriving: Map<string, string>;
  reservations: ReservationRecord[];
  /** JSON pointer of each reservation in the fixture, in the same order. */
  paths: string[];
}

/** A member the fixture moves to another wallet, with its place in the fixture. */
interface Move extends PlannedMove {
  /** Index of the member in the fixture's members. */
  index: number;
}

interface LoadPlan {
  clients: ClientRecord[];
  members: MemberRecord[];
  voucherDefinitions: VoucherDefinitionRecord[];
  walletChanges: Map<string, WalletChange>;
  moves: Move[];
  /** Moves a load that stopped half-way committed, left to finish (see member-moves.ts). */
  unfinished: PlannedMove[];
}

export interface LoadOptions {
  /** Told after each wallet written (the bulk of a large fixture): `loyalty-admin load` shows it. */
  onProgress?: (walletsDone: number, wallets: number) => void;
  /** Dates the fences of members being moved (default: the system clock); the servers judge them by theirs. */
  clock?: Clock;
  /** How long a fence holds unless the load renews it (default one minute): how long a load that died blocks its moving members. */
  moveLeaseMs?: number;
}

/**
 * Loads a fixture through the store port only. Records replace stored records
 * with the same key; balances and reservations go into their wallets through
 * the compare-and-set loop, so loading is safe next to a running server.
 *
 * Everything is read and checked before the first write: a fixture that
 * refers to unknown members fails without having changed the store. A
 * member that changes wallet is moved in steps that never leave a
 * reservation behind (member-moves.ts): a member that owns or funds live
 * reservations in the wallet it would leave, even one made while the load
 * runs, makes the load fail, naming it, having changed nothing; unless that
 * reservation was made after the load's fence lapsed (a load stalled past
 * its lease): then that member alone stays where it was, the rest of the
 * file is loaded, and the load still fails, naming it.
 */
export async function loadFixture(
  store: FixtureStore,
  fixture: Fixture,
  now: Date,
  limits: WalletLimits = defaultWalletLimits,
  options: LoadOptions = {},
): Promise<void> {
  const issues = semanticIssues(fixture);
  if (issues.length > 0) throw new FixtureError(issues);
  const plan = await planLoad(store, fixture, now, limits);
  const moves = new MemberMoves(store, plan.moves, { now, clock: options.clock ?? systemClock, leaseMs: options.moveLeaseMs ?? defaultMoveLeaseMs });
  const refused = await moves.fence();
  if (refused.length > 0) throw new FixtureError(refused.map((r) => moveIssue(plan, r)));

  await store.upsertClients(plan.clients);
  await store.upsertApiKeys(await newFixtureKeys(store, fixture, now));
  await store.upsertCatalogueItems(deepCopy(fixture.catalogueItems ?? []));
  await store.upsertRedemptions(deepCopy(fixture.redemptions ?? []));
  await store.upsertVoucherDefinitions(plan.voucherDefinitions);
  // Balances land in the new wallets (arriving) before members point there,
  // and leave the old wallets when the move is decided there.
  let walletsDone = 0;
  for (const [walletId, change] of plan.walletChanges) {
    await moves.renewIfDue();
    await updateWallet(store, walletId, (wallet) => applyWalletChange(wallet, change));
    options.onProgress?.(++walletsDone, plan.walletChanges.size);
  }
  await moves.renewIfDue();
  const late = await moves.commit();
  const stayed = new Set(late.map((r) => r.move.correlationId));
  await store.upsertMembers(plan.members.filter((m) => !stayed.has(m.correlationId)));
  await moves.finish();
  for (const move of plan.unfinished) await finishMove(store, move);
  if (late.length > 0) throw new FixtureError(late.map((r) => moveIssue(plan, r, 'made while the load ran, after its fence lapsed: this member stays where it was, the rest of the file is loaded')));
}

/** The issue of a move refused because the member holds live reservations where it is. */
function moveIssue(plan: LoadPlan, refused: RefusedMove, why?: string): FixtureIssue {
  const { move, reservationTokens } = refused;
  const index = plan.moves.find((m) => m.correlationId === move.correlationId)?.index;
  return {
    path: `/members/${index ?? '?'}/householdId`,
    message:
      `member ${JSON.stringify(move.correlationId)} leaves wallet ${move.fromWalletId}, which holds its active reservations ` +
      `(${reservationTokens.join(', ')}${why ? `; ${why}` : ''}); release them first`,
  };
}

async function planLoad(store: FixtureStore, fixture: Fixture, now: Date, limits: WalletLimits): Promise<LoadPlan> {
  const clients = (fixture.clients ?? []).map(toClientRecord);
  const members = (fixture.members ?? []).map(toMemberRecord);
  const stored = await storedMembers(store, fixture);
  // Where each member named by the fixture will be: the fixture wins over the store.
  const walletOf = new Map<string, string>();
  for (const [id, record] of stored) if (record) walletOf.set(id, record.walletId);
  for (const member of members) walletOf.set(member.correlationId, member.walletId);

  const issues: FixtureIssue[] = await publishableKeyIssues(store, fixture, now);
  const walletChanges = planWalletChanges(fixture, clients, walletOf, now, issues);
  // The moves each wallet the fixture changes records, read with it: most members stay in one of these.
  const recordedMoves = await checkWalletSizes(store, walletChanges, now, limits, issues);
  const { moves, unfinished } = await planMoves(store, members, stored, recordedMoves);
  for (const move of moves) walletChanges.get(move.toWalletId)?.arriving.set(move.correlationId, move.fromWalletId);
  if (issues.length > 0) throw new FixtureError(issues);

  const voucherDefinitions = (fixture.voucherDefinitions ?? []).map(toVoucherDefinitionRecord);
  return { clients, members, voucherDefinitions, walletChanges, moves, unfinished };
}

/** Balances and reservations grouped by the wallet they go to. */
function planWalletChanges(
  fixture: Fixture,
  clients: ClientRecord[],
  walletOf: Map<string, string>,
  now: Date,
  issues: FixtureIssue[],
): Map<string, WalletChange> {
  const changes = new Map<string, WalletChange>();
  const changeOf = (walletId: string): WalletChange => {
    let change = changes.get(walletId);
    if (!change) changes.set(walletId, (change = { balances: new Map(), arriving: new Map(), reservations: [], paths: [] }));
    return change;
  };
  for (const m of fixture.members ?? []) {
    changeOf(walletIdOf(m.correlationId, m.householdId ?? null)).balances.set(m.correlationId, m.pointBalance);
  }
  const clientById = new Map(clients.map((c) => [c.clientId, c]));
  (fixture.reservations ?? []).forEach((r, i) => {
    const path = `/reservations/${i}`;
    const walletId = reservationWallet(r, path, walletOf, issues);
    if (walletId === undefined) return;
    const change = changeOf(walletId);
    change.reservations.push(toReservationRecord(r, clientById.get(r.clientId)?.reservationDurationSeconds, now));
    change.paths.push(path);
  });
  return changes;
}

/**
 * No wallet may end up with more live reservations than the limit: those it
 * keeps from the store plus those the fixture brings. The issue points at the
 * first of the fixture's reservations past the limit. Returns the member
 * moves each wallet records (absent: no such wallet).
 */
async function checkWalletSizes(
  store: FixtureStore,
  changes: Map<string, WalletChange>,
  now: Date,
  limits: WalletLimits,
  issues: FixtureIssue[],
): Promise<Map<string, MemberMove[]>> {
  const limit = limits.maxActiveReservationsPerWallet;
  const recordedMoves = new Map<string, MemberMove[]>();
  for (const [walletId, change] of changes) {
    const incoming = new Set(change.reservations.map(reservationKey));
    const wallet = await store.loadWallet(walletId);
    if (wallet) recordedMoves.set(walletId, wallet.moves ?? []);
    const stored = wallet?.reservations ?? [];
    let live = stored.filter((r) => isLiveReservation(r, now) && !incoming.has(reservationKey(r))).length;
    let firstPast: string | undefined;
    change.reservations.forEach((r, i) => {
      if (!isLiveReservation(r, now)) return;
      live++;
      if (live > limit) firstPast ??= change.paths[i];
    });
    if (firstPast !== undefined) {
      issues.push({
        path: firstPast,
        message: `wallet ${walletId} would hold ${live} live reservations; MAX_ACTIVE_RESERVATIONS_PER_WALLET allows ${limit}`,
      });
    }
  }
  return recordedMoves;
}

/** Stored records of the fixture's members and of every member its reservations name. */
async function storedMembers(store: FixtureStore, fixture: Fixture): Promise<Map<string, MemberRecord | null>> {
  const ids = new Set<string>((fixture.members ?? []).map((m) => m.correlationId));
  for (const r of fixture.reservations ?? []) {
    ids.add(r.correlationId);
    for (const c of r.contributions) ids.add(c.correlationId);
  }
  const stored = new Map<string, MemberRecord | null>();
  // One at a time: a large fixture must not flood the store's connection pool.
  for (const id of ids) stored.set(id, await store.findMember(id));
  return stored;
}

/**
 * The wallet a reservation goes to: its member's. Every contributor must be
 * in that same wallet, or points would be reserved from a balance the wallet
 * does not hold and conservation would break.
 */
function reservationWallet(
  r: FixtureReservation,
  at: string,
  walletOf: Map<string, string>,
  issues: FixtureIssue[],
): string | undefined {
  const walletId = walletOf.get(r.correlationId);
  if (walletId === undefined) {
    issues.push({ path: `${at}/correlationId`, message: unknownMember(r.correlationId) });
  }
  r.contributions.forEach((c, j) => {
    const path = `${at}/contributions/${j}/correlationId`;
    const contributorWallet = walletOf.get(c.correlationId);
    if (contributorWallet === undefined) {
      issues.push({ path, message: unknownMember(c.correlationId) });
    } else if (walletId !== undefined && contributorWallet !== walletId) {
      issues.push({ path, message: `member ${JSON.stringify(c.correlationId)} is not in the wallet of the reservation's member (${walletId})` });
    }
  });
  return walletId;
}

function unknownMember(id: string): string {
  return `unknown member ${JSON.stringify(id)}: neither in this fixture nor in the store`;
}

/** Wallets a member's `left` records may lead through before the plan gives up following them. */
const maxForwards = 8;

/**
 * Members whose wallet changes, from where they are now: the wallet their
 * record names, or, when a load that stopped half-way committed a move
 * there, the wallet its `left` record leads to. A move such a load
 * committed to the wallet the fixture names is only left to finish. Whether
 * a member may leave is decided later, by its old wallet (member-moves.ts).
 */
async function planMoves(
  store: FixtureStore,
  members: MemberRecord[],
  stored: Map<string, MemberRecord | null>,
  recordedMoves: Map<string, MemberMove[]>,
): Promise<{ moves: Move[]; unfinished: PlannedMove[] }> {
  const movesOf = async (walletId: string) => recordedMoves.get(walletId) ?? (await store.loadWallet(walletId))?.moves;
  const moves: Move[] = [];
  const unfinished: PlannedMove[] = [];
  for (const [index, member] of members.entries()) {
    const before = stored.get(member.correlationId);
    if (!before) continue;
    let at = before.walletId;
    let move = moveOf(await movesOf(at), member.correlationId);
    for (let forwards = 0; move?.state === 'left' && forwards < maxForwards; forwards++) {
      at = move.walletId;
      move = moveOf(await movesOf(at), member.correlationId);
    }
    if (at !== member.walletId) {
      moves.push({ index, correlationId: member.correlationId, fromWalletId: at, toWalletId: member.walletId });
    } else if (at !== before.walletId || move?.state === 'arriving') {
      unfinished.push({ correlationId: member.correlationId, fromWalletId: move?.state === 'arriving' ? move.walletId : before.walletId, toWalletId: at });
    }
  }
  return { moves, unfinished };
}

function applyWalletChange(wallet: Wallet, change: WalletChange): boolean {
  for (const [correlationId, pointBalance] of change.balances) {
    const balance = wallet.balances.find((b) => b.correlationId === correlationId);
    if (balance) balance.pointBalance = pointBalance;
    else wallet.balances.push({ correlationId, pointBalance });
  }
  for (const [correlationId, from] of change.arriving) {
    wallet.moves = withMove(wallet.moves, correlationId, { correlationId, state: 'arriving', walletId: from });
  }
  // One pass over the wallet and one over the fixture's records: keyed, not searched.
  const indexByKey = new Map(wallet.reservations.map((r, index) => [reservationKey(r), index]));
  for (const reservation of change.reservations) {
    // A fresh copy per attempt: the CAS loop may run this more than once.
    const record = deepCopy(reservation);
    const key = reservationKey(record);
    const index = indexByKey.get(key);
    if (index !== undefined) {
      wallet.reservations[index] = record;
    } else {
      indexByKey.set(key, wallet.reservations.length);
      wallet.reservations.push(record);
    }
  }
  wallet.balances.sort((a, b) => compareKeys(a.correlationId, b.correlationId));
  return true;
}
