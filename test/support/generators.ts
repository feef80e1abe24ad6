import fc from 'fast-check';
import { clientIds, fixtureReservations, identifierTypes, keys, members, productCodes, redemptions, reliabilityClients, type ReliabilityClient } from './fixture';
import { spec } from './answers';

/**
 * Request generators. Valid bodies of Operation B come from the spec's own
 * schema (ReservationUpdateFields, read from openapi.yaml), with the fixture's
 * values mixed in so that requests reach the deep rules (tokens, items,
 * caps, balances) and not only the schema. Hostile generators then mutate
 * them: fields dropped, added, retyped; operator objects; `__proto__` keys;
 * huge and fractional numbers; deep nesting; malformed JSON.
 */

/** Percent-encodes every UTF-8 byte but unreserved characters: any string (lone surrogates too) becomes a valid path segment. */
export function segment(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Printable ASCII: what a header value may hold without Node refusing to send it. */
export const printable = (maxLength: number, minLength = 0) =>
  fc.string({ minLength, maxLength, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });

/** fast-check settings: a fixed seed unless FC_SEED says otherwise; FC_RUNS scales every run count. */
export function runs(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env.FC_SEED === 'random' ? Date.now() : Number(process.env.FC_SEED ?? 20261121);
  const factor = Number(process.env.FC_RUNS ?? 1);
  return { seed, numRuns: Math.max(1, Math.round(numRuns * factor)), endOnFailure: process.env.FC_SHRINK === '0' };
}

type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  not?: { enum?: unknown[] };
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
};

function resolve(schema: Schema): Schema {
  let current = schema;
  while (current.$ref) {
    const name = current.$ref.replace('#/components/schemas/', '');
    const target = spec.components.schemas[name] as Schema | undefined;
    if (!target) throw new Error(`unknown $ref ${current.$ref}`);
    current = target;
  }
  return current;
}

type Overrides = Record<string, fc.Arbitrary<unknown>>;

/** An arbitrary of the values `schema` allows (the subset of JSON Schema the spec's request bodies use). */
export function fromSchema(raw: Schema, overrides: Overrides = {}, name?: string): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  const derived = derive(schema, overrides);
  const override = name === undefined ? undefined : overrides[name];
  return override ? fc.oneof({ weight: 3, arbitrary: override }, { weight: 1, arbitrary: derived }) : derived;
}

function derive(schema: Schema, overrides: Overrides): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'object': {
      const properties = schema.properties ?? {};
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, child] of Object.entries(properties)) record[key] = fromSchema(child, overrides, key);
      return fc.record(record, { requiredKeys: (schema.required ?? []) as never[] });
    }
    case 'array':
      return fc.array(fromSchema(schema.items ?? {}, overrides), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'integer': {
      const min = BigInt(schema.minimum ?? Number.MIN_SAFE_INTEGER);
      const max = BigInt(Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
      return fc.bigInt({ min, max }).map(Number);
    }
    case 'number': {
      const excluded = new Set(schema.not?.enum ?? []);
      const min = schema.minimum ?? -1e9;
      const max = schema.maximum ?? 1e9;
      return fc
        .oneof(fc.integer({ min: Math.ceil(min), max: Math.floor(max) }), fc.double({ min, max, noNaN: true, noDefaultInfinity: true }))
        .filter((n) => !excluded.has(n) && !Object.is(n, -0));
    }
    case 'boolean':
      return fc.boolean();
    case 'string': {
      const constraints = { minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) };
      return fc.oneof(fc.string(constraints), fc.string({ ...constraints, unit: 'binary' }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

export type Body = Record<string, unknown>;

const fieldsSchema = spec.components.schemas.ReservationUpdateFields as Schema;

/** Values of the fixture, so that generated requests meet real tokens, items and redemptions. */
const realistic: Overrides = {
  reservationAmount: fc.oneof(
    fc.constantFrom(0, 1, 7, 1000, 1500, 2000, 2500, 4000, 5000, 9999, 10000, 10001, 40000, 1_000_000_000_000),
    fc.integer({ min: 0, max: 60000 }),
  ),
  productCode: fc.constantFrom(...productCodes, '9999999999'),
  quantity: fc.oneof(fc.constantFrom(1, 2, 3, 0.5, 1 / 3, 2.75), fc.integer({ min: 1, max: 30 })),
  channel: fc.constantFrom('CUX', 'POS', 'WEB'),
  redemptionId: fc.constantFrom('rd-100', 'rd-200', 'rd-999'),
  redeemerId: fc.constantFrom('m-alice', 'm-hh-1', 'm-bob'),
};

/** A body the spec accepts (it may still break a business rule). */
export const validBody: fc.Arbitrary<Body> = fc
  .tuple(fromSchema(fieldsSchema, realistic) as fc.Arbitrary<Body>, fc.option(fc.constantFrom(...redemptions), { freq: 2 }))
  .map(([body, pair]) => {
    const copy: Body = { ...body };
    // Items need both ids; most of the time give them a consistent pair.
    if (pair && (copy.catalogueItems !== undefined || copy.redemptionId !== undefined || copy.redeemerId !== undefined)) {
      copy.redemptionId = pair.redemptionId;
      copy.redeemerId = pair.redeemerId;
    }
    return copy;
  })
  .filter((body) => body.reservationAmount !== undefined || body.catalogueItems !== undefined);

// --- hostile values ----------------------------------------------------------

/** An object with `key` as an own property, even for `__proto__` (assignment would set the prototype). */
export function withOwnKey(target: Body, key: string, value: unknown): Body {
  const copy: Body = {};
  for (const [k, v] of Object.entries(target)) Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

export const operatorObjects = fc.constantFrom<unknown>(
  { $gt: 0 },
  { $gt: '' },
  { $ne: null },
  { $ne: 'x' },
  { $in: ['m-alice', 'm-hh-1'] },
  { $exists: true },
  { $where: 'sleep(1000) || true' },
  { $regex: '.*' },
  { $expr: { $gt: ['$reservationAmount', 0] } },
  { $set: { pointBalance: 1e9 } },
  JSON.parse('{"__proto__":{"polluted":true,"reservationAmount":1}}'),
  JSON.parse('{"constructor":{"prototype":{"polluted":true}}}'),
);

export const hostileNumbers = fc.constantFrom(
  -1,
  -0.5,
  0.1,
  1.5,
  1e12,
  1e12 + 1,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  4.9e-324,
);

export const hostileStrings = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'null',
    'true',
    '0',
    '-1',
    '1e400',
    '{"$gt":0}',
    '$gt',
    '__proto__',
    'constructor',
    'prototype',
    "'; DROP TABLE wallets; --",
    '${7*7}',
    '<script>alert(1)</script>',
    '\ud800',
    '\u202e',
    'm-alice',
    'rt-alice-1',
    'household:hh-1',
    'x'.repeat(129),
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 30, unit: 'binary' }),
);

/**
 * `[[[...]]]` nested `depth` deep: JSON that is cheap to send and deep to walk.
 * Generated as a marker that `serialize` expands, because this process cannot
 * JSON.stringify a value much deeper than the server can (both overflow
 * their stack somewhere above 4000 levels).
 */
export const nested = (depth: number): unknown => `\u0001deep:${depth}\u0001`;

/** JSON text of a generated body, with `nested` markers expanded. */
export function serialize(body: unknown): string {
  return (JSON.stringify(body) ?? '').replace(/"\\u0001deep:(\d+)\\u0001"/g, (_m, depth: string) => '['.repeat(Number(depth)) + ']'.repeat(Number(depth)));
}

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: operatorObjects },
  { weight: 2, arbitrary: hostileNumbers },
  { weight: 3, arbitrary: hostileStrings },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [1], ['CUX'], [{}]) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 7500 }).map(nested) },
);

const hostileKeys = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', '$where', '$gt', 'walletId', 'version', 'contributions', 'clientId', 'pointBalance', 'isAdmin', ''),
  fc.string({ maxLength: 12 }),
);

/** A catalogue item entry with something wrong in it. */
const hostileItem: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ productCode: hostileValue }),
  fc.record({ productCode: fc.constantFrom(...productCodes), quantity: hostileValue }),
  fc.tuple(fc.constantFrom(...productCodes), hostileKeys, hostileValue).map(([code, key, value]) => withOwnKey({ productCode: code }, key, value)),
  hostileValue,
);

/** One change that (usually) makes a valid body invalid. */
const mutation: fc.Arbitrary<(body: Body) => unknown> = fc.oneof(
  // drop a field
  fc.nat().map((n) => (body: Body) => {
    const fields = Object.keys(body);
    if (fields.length === 0) return body;
    const drop = fields[n % fields.length]!;
    return Object.fromEntries(Object.entries(body).filter(([k]) => k !== drop));
  }),
  // a known field gets a hostile value
  fc.tuple(fc.constantFrom(...Object.keys((resolve(fieldsSchema).properties ?? {}))), hostileValue).map(
    ([field, value]) => (body: Body) => withOwnKey(body, field, value),
  ),
  // an extra field
  fc.tuple(hostileKeys, hostileValue).map(([key, value]) => (body: Body) => withOwnKey(body, key, value)),
  // a hostile catalogue item among valid ones
  fc.tuple(hostileItem, fc.nat({ max: 3 })).map(([item, at]) => (body: Body) => {
    const items = Array.isArray(body.catalogueItems) ? [...(body.catalogueItems as unknown[])] : [];
    items.splice(at % (items.length + 1), 0, item);
    return { redemptionId: 'rd-100', redeemerId: 'm-alice', ...body, catalogueItems: items };
  }),
  // not an object at all
  hostileValue.map((value) => () => value),
);

/** A body that may be anything: valid, mutated once or twice, or hostile through and through. */
export const anyBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: validBody },
  { weight: 4, arbitrary: fc.tuple(validBody, mutation).map(([body, mutate]) => mutate(body)) },
  {
    weight: 2,
    arbitrary: fc.tuple(validBody, mutation, mutation).map(([body, first, second]) => {
      const once = first(body);
      return once && typeof once === 'object' && !Array.isArray(once) ? second(once as Body) : once;
    }),
  },
);

/** JSON text with something broken in it. */
export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(validBody, fc.nat()).map(([body, n]) => {
    const text = serialize(body);
    return text.slice(0, n % text.length);
  }),
  fc.tuple(validBody, fc.nat(), fc.constantFrom('"', ',', '}', ']', ':', '\\', '\u0000', 'x', '{')).map(([body, n, char]) => {
    const text = serialize(body);
    const at = n % (text.length + 1);
    return text.slice(0, at) + char + text.slice(at);
  }),
  fc.constantFrom(
    '{"reservationAmount": NaN}',
    '{"reservationAmount": Infinity}',
    "{'reservationAmount': 1}",
    '{"reservationAmount": 1,}',
    '{"reservationAmount": 1}{"reservationAmount": 2}',
    '{"reservationAmount": 1} // comment',
    '{"reservationAmount": 0x10}',
    '{"reservationAmount": 01}',
    '{reservationAmount: 1}',
    '"just a string"',
    '42',
    'true',
    'null',
    '',
    ' ',
    '\u0000',
    '[',
    '{"a":' + '['.repeat(6000),
  ),
  fc.string({ maxLength: 200, unit: 'binary' }),
);

// --- request targets -------------------------------------------------------------

export const memberArb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...members) },
  { weight: 1, arbitrary: hostileStrings.filter((s) => s.length > 0 && s.length <= 200) },
);

const fixtureTokens = [...new Set(fixtureReservations.map((r) => r.reservationToken))];

export const reservationTokenArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...fixtureTokens) },
  { weight: 3, arbitrary: fc.nat({ max: 50 }).map((n) => `rt-gen-${n}`) },
  { weight: 1, arbitrary: hostileStrings.filter((s) => s.length > 0 && s.length <= 200) },
);

export type SessionChoice =
  | { kind: 'own'; identifierType: (typeof identifierTypes)[number] }
  | { kind: 'otherMember'; member: string }
  | { kind: 'otherClient'; client: ReliabilityClient }
  | { kind: 'none' }
  | { kind: 'garbage'; value: string };

export const sessionArb: fc.Arbitrary<SessionChoice> = fc.oneof(
  { weight: 14, arbitrary: fc.constantFrom(...identifierTypes).map((identifierType) => ({ kind: 'own' as const, identifierType })) },
  { weight: 1, arbitrary: fc.constantFrom(...members).map((member) => ({ kind: 'otherMember' as const, member })) },
  { weight: 1, arbitrary: fc.constantFrom(...reliabilityClients).map((client) => ({ kind: 'otherClient' as const, client })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: printable(300, 1).map((value) => ({ kind: 'garbage' as const, value })) },
);

export const clientArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant<ReliabilityClient>('partner') },
  { weight: 2, arbitrary: fc.constantFrom<ReliabilityClient>('capped', 'tiered', 'other', 'noVouchers') },
);

export const apiKeyArb = fc.oneof(
  { weight: 10, arbitrary: clientArb.map((client) => ({ client, key: keys[client] })) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.constantFrom(undefined, '', ' ', keys.partner.toUpperCase(), keys.partner.slice(0, -1), `${keys.partner},${keys.other}`, 'x'.repeat(300)), printable(40))
      .map((key) => ({ client: null, key })),
  },
);

export { clientIds };
