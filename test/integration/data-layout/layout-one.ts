import type { Db } from 'mongodb';
import { hashSecret } from '../../../server/src/domain/secrets';
import { collectionNames } from '../../../server/src/store/mongo/collections';

/*
 * A database as a server of data layout 1 left it, written with the driver
 * alone (no code of this release): wallets keep their reservations inline
 * and carry no totals, each client holds one key digest (`apiKeyHash`, with
 * its unique index), sessions name no key. Nothing records the layout.
 */

export const layoutOneFacts = {
  now: '2030-01-01T00:00:00.000Z',
  apiKey: 'pk_layout1_partner_0001',
  sessionToken: 'st_layout1_session_token_0001',
  reservations: 3,
  householdBalances: [
    { correlationId: 'm-a', pointBalance: 1000 },
    { correlationId: 'm-b', pointBalance: 500 },
  ],
};

/** A client as layout 1 and 2 kept it: the settings and its one key's digest. */
export const layoutOneClient = (clientId: string, apiKey: string) => ({
  _id: clientId,
  apiKeyHash: hashSecret(apiKey),
  enabledBusinessUnits: ['LCL'],
  defaultBusinessUnit: 'LCL',
  vouchersEnabled: true,
  sessionTtlSeconds: 3600,
  reservationDurationSeconds: 900,
  extendedDurationSeconds: 3600,
  redemptionTiers: null,
  dailyRedemptionCap: null,
});

const member = (correlationId: string, walletId: string, householdId: string | null) => ({
  _id: correlationId,
  walletId,
  householdId,
  eligibleForRedemption: true,
  privileges: ['REDEEM'],
});

const reservation = (token: string, correlationId: string, contributions: Array<[string, number]>) => ({
  reservationToken: token,
  clientId: 'partner-app',
  correlationId,
  identifierType: 'CARD_NUMBER',
  reservationAmount: contributions.reduce((sum, [, points]) => sum + points, 0),
  contributions: contributions.map(([id, points]) => ({ correlationId: id, points })),
  expiresAt: new Date('2030-01-01T01:00:00.000Z'),
  createdAt: new Date('2029-12-31T23:50:00.000Z'),
  excludedFromCap: false,
});

export async function layoutOneDatabase(db: Db): Promise<void> {
  await db.collection(collectionNames.clients).createIndex({ apiKeyHash: 1 }, { unique: true });
  await db.collection(collectionNames.clients).insertMany([layoutOneClient('partner-app', layoutOneFacts.apiKey), layoutOneClient('other-app', 'pk_layout1_other_0001')] as never[]);
  await db
    .collection(collectionNames.members)
    .insertMany([member('m-a', 'household:hh-1', 'hh-1'), member('m-b', 'household:hh-1', 'hh-1'), member('m-solo', 'member:m-solo', null)] as never[]);
  await db.collection(collectionNames.wallets).insertMany([
    {
      _id: 'household:hh-1',
      version: 3,
      balances: layoutOneFacts.householdBalances,
      reservations: [reservation('rt-household', 'm-a', [['m-a', 300], ['m-b', 200]]), reservation('rt-small', 'm-a', [['m-a', 100]])],
    },
    { _id: 'member:m-solo', version: 1, balances: [{ correlationId: 'm-solo', pointBalance: 800 }], reservations: [reservation('rt-solo', 'm-solo', [['m-solo', 400]])] },
  ] as never[]);
  await db.collection(collectionNames.sessions).insertOne({
    _id: hashSecret(layoutOneFacts.sessionToken),
    sessionId: '6a1e3f2c-0d4b-4c1e-9f7a-2b8c5d6e7f80',
    clientId: 'partner-app',
    correlationId: 'm-a',
    identifierType: 'CARD_NUMBER',
    expiresAt: new Date('2030-01-01T02:00:00.000Z'),
  } as never);
}
