import type { Db } from 'mongodb';
import { collectionNames } from '../../../server/src/store/mongo/collections';

/*
 * A database as a server of data layout 3 left it, written with the driver
 * alone: one wallet whose last change (version 5, lowering a reservation to
 * 250) is still in `pending` and `pendingAudit`, its reservation document
 * at the version before (300). The process that made it stopped before
 * copying either out.
 */
export async function layoutThreeDatabase(db: Db) {
  const walletId = 'member:m-three';
  const key = { clientId: 'partner-app', correlationId: 'm-three', reservationToken: 'rt-three' };
  const reservationDocId = [walletId, key.clientId, key.correlationId, key.reservationToken].map((part) => `${part.length}:${part}`).join('');
  const expiresAt = new Date('2030-01-01T00:15:00.000Z');
  const reservation = (amount: number) => ({
    ...key,
    identifierType: 'CARD_NUMBER',
    reservationAmount: amount,
    contributions: [{ correlationId: 'm-three', points: amount }],
    expiresAt,
    createdAt: new Date('2030-01-01T00:00:00.000Z'),
    excludedFromCap: false,
  });
  await db.collection(collectionNames.meta).insertOne({ _id: 'layout' as never, version: 3, since: new Date('2029-01-01T00:00:00.000Z') });
  await db.collection(collectionNames.wallets).insertOne({
    _id: walletId as never,
    version: 5,
    balances: [{ correlationId: 'm-three', pointBalance: 1000 }],
    totals: { held: [{ correlationId: 'm-three', points: 250 }], daily: [], count: 1, nextExpiry: expiresAt },
    pending: [{ key, reservation: reservation(250) }],
    pendingAudit: [
      {
        walletId,
        walletVersion: 5,
        reservationToken: key.reservationToken,
        at: new Date('2030-01-01T00:01:00.000Z'),
        action: 'UPDATE',
        clientId: key.clientId,
        sessionId: 'sid-three',
        correlationId: key.correlationId,
        before: { reservationAmount: 300, contributions: [{ correlationId: 'm-three', points: 300 }], expiresAt },
        after: { reservationAmount: 250, contributions: [{ correlationId: 'm-three', points: 250 }], expiresAt },
        shares: [{ correlationId: 'm-three', points: 50 }],
      },
    ],
  });
  await db.collection(collectionNames.reservations).insertOne({ _id: reservationDocId as never, walletId, walletVersion: 4, ...reservation(300) });
  return { walletId, key, reservationDocId, auditId: `${walletId}@5` };
}
