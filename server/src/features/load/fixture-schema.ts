import { clientDefaults } from '../../domain/client-defaults';
import type { CatalogueItemRecord, RedemptionRecord, ReservationRecord, VoucherDefinitionRecord } from '../../domain/model';
import { maxSessionTtlSeconds } from '../../domain/limits';
import { maxOriginLength, maxOriginsPerKey } from '../../domain/origins';

/** Texts by locale ('en-CA', ...), each text optional: a catalogue item's messages, a definition's creative. */
function textsByLocale<const Name extends string>(...names: Name[]) {
  const texts = Object.fromEntries(names.map((name) => [name, { type: 'string' }])) as Record<Name, { type: 'string' }>;
  return { type: 'object', additionalProperties: { type: 'object', properties: texts } } as const;
}

/**
 * JSON schema of a fixture, the project's own copy of the shared fixture
 * format (the shared file is never read at run time). A client may give
 * several secret API keys (`apiKeys`) besides or instead of the format's
 * `apiKey`, and publishable keys for its web pages, each with its origins
 * (`publishableKeys`); each key at most 256 characters (longer keys are
 * never accepted), free-form except that a key starting `lsk_` or `lpk_`
 * must be a whole generated key of its kind (check-fixture.ts, keyFormIssues).
 * One point is stricter:
 * a voucher definition's `rewardMetadata` must carry `amount` (number) and
 * `scopeType` (string), because the member-facing summary derives
 * `rewardValue` and `scope` from them and cannot serve a definition without.
 *
 * Keep it in step with the `Fixture` types below.
 */
export const fixtureSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'loyalty-server/fixture.schema.json',
  title: 'Loyalty service fixture',
  description:
    'Data loaded into the store at start-up (SEED_FILE) or by tests. Every collection is optional. Records replace stored records with the same key.',
  type: 'object',
  additionalProperties: false,
  properties: {
    clients: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['clientId', 'enabledBusinessUnits'],
        // At least one key: the format's single `apiKey`, or several, of either kind.
        anyOf: [
          { properties: { apiKey: { type: 'string' } }, required: ['apiKey'] },
          { properties: { apiKeys: { type: 'array' } }, required: ['apiKeys'] },
          { properties: { publishableKeys: { type: 'array' } }, required: ['publishableKeys'] },
        ],
        properties: {
          clientId: { type: 'string', minLength: 1 },
          apiKey: { type: 'string', minLength: 8, maxLength: 256, description: 'Stored hashed, never in clear.' },
          apiKeys: {
            type: 'array',
            minItems: 1,
            maxItems: 20,
            items: { type: 'string', minLength: 8, maxLength: 256 },
            description: 'More secret keys of the client (after apiKey when both are given); each stored hashed, never in clear.',
          },
          publishableKeys: {
            type: 'array',
            minItems: 1,
            maxItems: 10,
            description: "Keys for the client's web pages, each bound to its origins (docs/partner-web-apps.md); stored hashed, never in clear.",
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['apiKey', 'origins'],
              properties: {
                apiKey: { type: 'string', minLength: 8, maxLength: 256 },
                origins: {
                  type: 'array',
                  minItems: 1,
                  maxItems: maxOriginsPerKey,
                  items: { type: 'string', minLength: 1, maxLength: maxOriginLength },
                  description: 'Exact origins, as browsers send them: scheme://host[:port], lower-case, no path or trailing slash.',
                },
              },
            },
          },
          enabledBusinessUnits: { type: 'array', items: { type: 'string' } },
          defaultBusinessUnit: { type: ['string', 'null'], description: 'Must be one of enabledBusinessUnits when set.' },
          vouchersEnabled: { type: 'boolean', default: clientDefaults.vouchersEnabled },
          sessionTtlSeconds: {
            type: 'integer',
            minimum: 1,
            maximum: maxSessionTtlSeconds,
            default: clientDefaults.sessionTtlSeconds,
            description: 'Seconds a session lives, at most a day.',
          },
          reservationDurationSeconds: { type: 'integer', minimum: 1, default: clientDefaults.reservationDurationSeconds },
          extendedDurationSeconds: { type: 'integer', minimum: 1, default: clientDefaults.extendedDurationSeconds },
          redemptionTiers: { type: ['array', 'null'], items: { type: 'integer', minimum: 1 }, default: clientDefaults.redemptionTiers },
          dailyRedemptionCap: { type: ['integer', 'null'], minimum: 0, default: clientDefaults.dailyRedemptionCap },
        },
      },
    },
    members: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['correlationId', 'pointBalance'],
        properties: {
          correlationId: { type: 'string', minLength: 1 },
          pointBalance: { type: 'integer', minimum: 0 },
          eligibleForRedemption: { type: 'boolean', default: true },
          householdId: { type: ['string', 'null'], default: null },
          privileges: { type: 'array', items: { type: 'string' }, default: [] },
        },
      },
    },
    catalogueItems: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['productCode', 'catalogueItemId', 'catalogueItemName', 'redemptionType', 'pointsAmount', 'messages'],
        properties: {
          productCode: { type: 'string' },
          catalogueItemId: { type: 'string' },
          catalogueItemName: { type: 'string' },
          redemptionType: { type: 'string' },
          pointsAmount: { type: 'integer', minimum: 0 },
          messages: textsByLocale('promptText', 'receiptTextLong', 'receiptTextShort'),
        },
      },
    },
    redemptions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['redemptionId', 'redeemerId', 'redemptionName'],
        properties: {
          redemptionId: { type: 'string' },
          redeemerId: { type: 'string', description: 'Owner of the redemption identifier.' },
          redemptionName: { type: 'string' },
        },
      },
    },
    reservations: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['reservationToken', 'clientId', 'correlationId', 'identifierType', 'reservationAmount', 'contributions'],
        properties: {
          reservationToken: { type: 'string' },
          clientId: { type: 'string' },
          correlationId: { type: 'string', description: 'The member the reservation was made for.' },
          identifierType: { type: 'string', description: 'Identifier type of the session that made it.' },
          reservationAmount: { type: 'integer', minimum: 0 },
          contributions: {
            type: 'array',
            description: 'Who funds the reservation; the points sum to reservationAmount.',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['correlationId', 'points'],
              properties: {
                correlationId: { type: 'string' },
                points: { type: 'integer', minimum: 0 },
              },
            },
          },
          expiresAt: {
            type: 'string',
            format: 'date-time',
            description: "Default: now + the client's reservationDurationSeconds.",
          },
          createdAt: { type: 'string', format: 'date-time' },
        },
      },
    },
    voucherDefinitions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'voucherDefinitionId',
          'adminId',
          'businessUnit',
          'status',
          'definitionName',
          'rewardType',
          'rewardMetadata',
          'expiryRule',
          'creative',
        ],
        properties: {
          voucherDefinitionId: { type: 'string' },
          adminId: { type: 'string', description: 'Identifier used in the administrative console; never served to members.' },
          businessUnit: { type: 'string' },
          status: { type: 'string', description: 'Only PUBLISHED is listed by Operation A.' },
          usageChannels: { type: 'array', items: { type: 'string' }, description: 'Absent or empty: usable everywhere.' },
          definitionName: { type: 'string' },
          rewardType: { type: 'string' },
          rewardMetadata: {
            type: 'object',
            description:
              'For DOLLAR_OFF: amount, unit, scopeType (e.g. CART). Stricter than the shared format: amount and scopeType are required, the member-facing summary needs them.',
            required: ['amount', 'scopeType'],
            properties: {
              amount: { type: 'number' },
              unit: { type: 'string' },
              scopeType: { type: 'string' },
            },
          },
          expiryRule: {
            type: 'object',
            required: ['type'],
            properties: {
              type: { type: 'string' },
              rollingDays: { type: 'integer', minimum: 0 },
            },
          },
          creative: textsByLocale('shortDescription1', 'smallImageURI'),
          pointValue: { type: ['number', 'null'] },
          redeemableValue: { type: ['number', 'null'] },
          systemOfRecord: { type: 'string' },
          version: { type: 'integer' },
          basedOn: { type: ['string', 'null'] },
          features: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

/** A publishable key as a fixture gives it: in clear, with the exact origins of the pages that may send it. */
export interface FixturePublishableKey {
  apiKey: string;
  origins: string[];
}

/** A client as a fixture gives it: its API keys in clear (at least one), most settings optional. */
export interface FixtureClient {
  clientId: string;
  apiKey?: string;
  apiKeys?: string[];
  publishableKeys?: FixturePublishableKey[];
  enabledBusinessUnits: string[];
  defaultBusinessUnit?: string | null;
  vouchersEnabled?: boolean;
  sessionTtlSeconds?: number;
  reservationDurationSeconds?: number;
  extendedDurationSeconds?: number;
  redemptionTiers?: number[] | null;
  dailyRedemptionCap?: number | null;
}

/** A member and its balance (the balance goes to the member's wallet). */
export interface FixtureMember {
  correlationId: string;
  pointBalance: number;
  eligibleForRedemption?: boolean;
  householdId?: string | null;
  privileges?: string[];
}

export type FixtureCatalogueItem = CatalogueItemRecord;
export type FixtureRedemption = RedemptionRecord;

/** A reservation as a fixture gives it: its dates optional, as ISO-8601 date-times; never excluded from the cap. */
export type FixtureReservation = Omit<ReservationRecord, 'expiresAt' | 'createdAt' | 'excludedFromCap'> & {
  expiresAt?: string;
  createdAt?: string;
};

export type FixtureVoucherDefinition = Omit<VoucherDefinitionRecord, 'pointValue' | 'redeemableValue'> & {
  pointValue?: number | null;
  redeemableValue?: number | null;
};

/** A fixture as `fixtureSchema` describes it; every collection is optional. */
export interface Fixture {
  clients?: FixtureClient[];
  members?: FixtureMember[];
  catalogueItems?: FixtureCatalogueItem[];
  redemptions?: FixtureRedemption[];
  reservations?: FixtureReservation[];
  voucherDefinitions?: FixtureVoucherDefinition[];
}
