/**
 * Generates the bench fixture (the format of server/fixtures/example.json,
 * validated by the server when it loads it) and the plan the load generator
 * follows: which API key, member and reservation each request uses.
 *
 * Deterministic: the same options and `now` give the same fixture.
 */
import type { FixtureClient, FixtureMember, FixtureReservation, FixtureVoucherDefinition } from '../server/src/features/load/fixture-schema';
import { fixtureClient, fixtureDefinition, fixtureMember, fixtureReservation } from '../server/src/test-support/fixture-entries';

export interface FixtureOptions {
  /** Voucher definitions in total, over `businessUnits` units (default 2,000). */
  definitions: number;
  /** Reservations in total, `reservationsPerMember` per member (default 20,000). */
  reservations: number;
  reservationsPerMember: number;
  /** Client applications (each with its own API key); members are spread over them. */
  clients: number;
  businessUnits: number;
  /** Definitions Operation A lists for the measured business unit. */
  listed: number;
  /** Every `householdEvery`-th pair of members shares a household wallet (0: none). */
  householdEvery: number;
  /**
   * Reservations in wallets nobody uses (members `idle-...`, outside the
   * plan, 1,000 each, the server's default limit): so that two fixtures can hold as many
   * reservations in all while their measured wallets differ in size.
   */
  idleReservations: number;
}

export const defaultFixtureOptions: FixtureOptions = {
  definitions: 2_000,
  reservations: 20_000,
  reservationsPerMember: 10,
  clients: 4,
  businessUnits: 10,
  listed: 100,
  householdEvery: 4,
  idleReservations: 0,
};

/** The measured business unit: not the clients' default, so `businessUnit` is sent and checked. */
export const listedBusinessUnit = 'BU-03';
const defaultBusinessUnit = 'BU-00';
const startingReservation = 50_000;

export interface PlanClient {
  clientId: string;
  apiKey: string;
}

export interface PlanReservation {
  token: string;
  /** The amount the store holds for it (the bench lowers it one point per request). */
  amount: number;
}

export interface PlanMember {
  correlationId: string;
  client: number;
  /** The wallet changed by the member's reservations: the index of its first member (household partners share one). */
  wallet: number;
  reservations: PlanReservation[];
}

export interface BenchPlan {
  clients: PlanClient[];
  /** A client of its own, used by no member's requests: the flooding key. */
  flood: PlanClient;
  members: PlanMember[];
  businessUnit: string;
  listed: number;
}

/**
 * The fixture JSON shape (server/src/features/load/fixture-schema.ts); the
 * server validates it on load. No catalogue items or redemptions: neither
 * operation the bench measures uses them, and the schema makes them optional.
 */
export interface FixtureJson {
  clients: FixtureClient[];
  members: FixtureMember[];
  reservations: FixtureReservation[];
  voucherDefinitions: FixtureVoucherDefinition[];
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
const unitName = (i: number): string => `BU-${pad(i, 2)}`;

export function generateFixture(partial: Partial<FixtureOptions> = {}, now = new Date()): { fixture: FixtureJson; plan: BenchPlan } {
  const options = { ...defaultFixtureOptions, ...partial };
  const units = Array.from({ length: options.businessUnits }, (_, i) => unitName(i));
  const clients: PlanClient[] = Array.from({ length: options.clients }, (_, i) => ({
    clientId: `bench-client-${i}`,
    apiKey: `bk_bench_${i}_${'k'.repeat(24)}`,
  }));
  const flood: PlanClient = { clientId: 'bench-flood', apiKey: `bk_bench_flood_${'f'.repeat(24)}` };

  const memberCount = Math.max(1, Math.ceil(options.reservations / Math.max(1, options.reservationsPerMember)));
  const { members, plan: planMembers, reservations } = membersAndReservations(options, memberCount, clients, now);
  const idle = idleWallets(options, clients[0]!, now);
  members.push(...idle.members);
  reservations.push(...idle.reservations);

  const fixture: FixtureJson = {
    // A session outlives the run; the other settings are the schema's defaults.
    clients: [...clients, flood].map((c) => fixtureClient(c.clientId, c.apiKey, { enabledBusinessUnits: units, defaultBusinessUnit, sessionTtlSeconds: 86_400 })),
    members,
    reservations,
    voucherDefinitions: definitions(options, units),
  };
  return { fixture, plan: { clients, flood, members: planMembers, businessUnit: listedBusinessUnit, listed: options.listed } };
}

/**
 * Members `m-00000`...; member i and member i + half share a household when
 * i % householdEvery === 0 (partners far apart in the request order, so
 * concurrent requests seldom race for one wallet). Household members hold the
 * REDEEM privilege (their responses carry the household sums); every other
 * reservation of a household member is funded by both partners.
 */
function membersAndReservations(options: FixtureOptions, memberCount: number, clients: PlanClient[], now: Date) {
  const half = Math.floor(memberCount / 2);
  const partnerOf = (i: number): number | null => {
    if (options.householdEvery <= 0 || half === 0) return null;
    if (i < half && i % options.householdEvery === 0 && i + half < memberCount) return i + half;
    if (i >= half && (i - half) % options.householdEvery === 0 && i - half < half) return i - half;
    return null;
  };
  const id = (i: number): string => `m-${pad(i, 5)}`;
  const householdOf = (i: number): string | null => {
    const partner = partnerOf(i);
    return partner === null ? null : `hh-${pad(Math.min(i, partner), 5)}`;
  };

  const members: FixtureJson['members'] = [];
  const plan: PlanMember[] = [];
  const reservations: FixtureJson['reservations'] = [];
  const expiresAt = new Date(now.getTime() + 2 * 86_400_000).toISOString();
  const createdAt = new Date(now.getTime() - 60_000).toISOString();
  let left = options.reservations;

  for (let i = 0; i < memberCount; i++) {
    const partner = partnerOf(i);
    const householdId = householdOf(i);
    members.push(fixtureMember(id(i), 10_000_000, { householdId, privileges: householdId ? ['REDEEM'] : [] }));
    // Members of one household use the same client: a reservation is the client's.
    const client = (partner === null ? i : Math.min(i, partner)) % clients.length;
    const planned: PlanMember = { correlationId: id(i), client, wallet: partner === null ? i : Math.min(i, partner), reservations: [] };
    const count = Math.min(left, options.reservationsPerMember);
    left -= count;
    for (let j = 0; j < count; j++) {
      const token = `rt-${pad(i, 5)}-${pad(j, 3)}`;
      const shared = partner !== null && j % 2 === 1;
      const contributions = shared
        ? [
            { correlationId: id(i), points: (startingReservation * 3) / 5 },
            { correlationId: id(partner), points: (startingReservation * 2) / 5 },
          ]
        : [{ correlationId: id(i), points: startingReservation }];
      reservations.push(fixtureReservation(token, id(i), contributions, { clientId: clients[client]!.clientId, expiresAt, createdAt }));
      planned.reservations.push({ token, amount: startingReservation });
    }
    plan.push(planned);
  }
  return { members, plan, reservations };
}

function idleWallets(options: FixtureOptions, client: PlanClient, now: Date) {
  const members: FixtureJson['members'] = [];
  const reservations: FixtureJson['reservations'] = [];
  const perWallet = 1000;
  for (let n = 0; n < options.idleReservations; n++) {
    const correlationId = `idle-${pad(Math.floor(n / perWallet), 5)}`;
    if (n % perWallet === 0) members.push(fixtureMember(correlationId, 10_000_000, { householdId: null, privileges: [] }));
    reservations.push(
      fixtureReservation(`rt-${correlationId}-${pad(n % perWallet, 4)}`, correlationId, { [correlationId]: 1 }, {
        clientId: client.clientId,
        expiresAt: new Date(now.getTime() + 2 * 86_400_000).toISOString(),
        createdAt: new Date(now.getTime() - 60_000).toISOString(),
      }),
    );
  }
  return { members, reservations };
}

/**
 * The measured unit holds exactly `listed` definitions Operation A lists
 * (published, usable on CUX: channels including CUX, absent or empty) and 30
 * published ones for other channels only. Everything else (other units, other
 * statuses anywhere) grows with `definitions`: a tenth of the rest in other
 * statuses of the measured unit, the remainder spread over the other units.
 */
function definitions(options: FixtureOptions, units: string[]): FixtureJson['voucherDefinitions'] {
  const out: FixtureJson['voucherDefinitions'] = [];
  let serial = 0;
  const add = (businessUnit: string, status: string, usageChannels: string[] | undefined) => {
    out.push(definition(serial++, businessUnit, status, usageChannels));
  };
  const listedChannels = (k: number): string[] | undefined => (k % 3 === 0 ? ['CUX', 'POS'] : k % 3 === 1 ? undefined : []);
  for (let k = 0; k < options.listed; k++) add(listedBusinessUnit, 'PUBLISHED', listedChannels(k));
  const posOnly = 30;
  for (let k = 0; k < posOnly; k++) add(listedBusinessUnit, 'PUBLISHED', ['POS']);

  const rest = Math.max(0, options.definitions - options.listed - posOnly);
  const sameUnitOthers = Math.floor(rest / 10);
  const otherStatuses = ['DRAFT', 'RETIRED', 'EXPIRED'];
  for (let k = 0; k < sameUnitOthers; k++) add(listedBusinessUnit, otherStatuses[k % otherStatuses.length]!, listedChannels(k));
  const otherUnits = units.filter((u) => u !== listedBusinessUnit);
  const statuses = ['PUBLISHED', 'PUBLISHED', 'DRAFT', 'RETIRED'];
  for (let k = 0; k < rest - sameUnitOthers; k++) {
    add(otherUnits[k % otherUnits.length]!, statuses[Math.floor(k / otherUnits.length) % statuses.length]!, listedChannels(k));
  }
  // Stored in id order would flatter an index built by appending: shuffle deterministically.
  return deterministicShuffle(out);
}

function definition(serial: number, businessUnit: string, status: string, usageChannels: string[] | undefined): FixtureVoucherDefinition {
  const amount = 1 + (serial % 20);
  return fixtureDefinition(`vd-${pad(serial, 6)}`, {
    adminId: `ADM-${pad(serial * 7, 7)}`,
    businessUnit,
    status,
    usageChannels,
    definitionName: `$${amount} off your order`,
    rewardMetadata: { amount, unit: 'FLAT', scopeType: serial % 4 === 0 ? 'ITEM' : 'CART' },
    expiryRule: serial % 5 === 0 ? { type: 'FIXED' } : { type: 'ROLLING', rollingDays: 30 },
    creative: {
      'en-CA': { shortDescription1: `$${amount} off`, smallImageURI: `https://cdn.example.com/v/${serial}-en.png` },
      'fr-CA': { shortDescription1: `${amount} $ de rabais`, smallImageURI: `https://cdn.example.com/v/${serial}-fr.png` },
    },
    pointValue: amount * 1000,
    redeemableValue: serial % 3 === 0 ? null : amount * 1000,
    version: 1 + (serial % 4),
  });
}

function deterministicShuffle<T>(items: T[]): T[] {
  let state = 0x9e3779b9;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
