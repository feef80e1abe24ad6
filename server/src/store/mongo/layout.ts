import type { Db } from 'mongodb';
import { collectionNames } from './collections';

/*
 * The data layout a database holds, recorded in it (collection `meta`,
 * document `layout`). A server knows exactly one layout, `currentLayout`: it
 * starts on a database of that layout, gives an empty database that layout,
 * and stops on any other with one plain message naming both versions and
 * what to do (`LayoutMismatchError`). Code that reads earlier layouts lives
 * in the migrations (migrations/), never on the request path.
 *
 * | layout | what it changed                                                           |
 * |--------|---------------------------------------------------------------------------|
 * | 1      | a wallet document holds its reservations inline (`reservations`), no totals |
 * | 2      | each reservation a document of its own; wallets carry running totals       |
 * | 3      | API keys are documents of their own (`apiKeys`), several per client;       |
 * |        | a session records the key that started it (`keyId`)                        |
 * | 4      | a wallet's last change carries its writes elsewhere in `outbox`, delivered |
 * |        | by any reader or the sweep (it waited in `pending` and `pendingAudit`)     |
 * | 5      | an API key has a kind (`secret`, or `publishable` with its `origins`)      |
 *
 * Databases written before the layout was recorded hold 1 or 2 (told apart
 * by their wallets).
 */

export const currentLayout = 5;

export const layoutDocumentId = 'layout';

export interface LayoutDoc {
  _id: typeof layoutDocumentId;
  version: number;
  /** When the database reached this version. */
  since: Date;
  /** Set while `loyalty-admin migrate` brings the database to `to` (or when a run stopped half-way). */
  migrating?: { to: number; startedAt: Date };
}

export interface LayoutState {
  /** The layout the data is in; null for an empty database. */
  version: number | null;
  /** False for a database written before the layout was recorded (or empty). */
  recorded: boolean;
  /** A migration under way, or one that stopped half-way. */
  migrating: LayoutDoc['migrating'] | null;
}

/** The server cannot serve this database: another layout, or a migration under way. */
export class LayoutMismatchError extends Error {
  constructor(readonly state: LayoutState) {
    super(describeMismatch(state));
    this.name = 'LayoutMismatchError';
  }
}

function describeMismatch(state: LayoutState): string {
  if (state.migrating) {
    return (
      `The database is being migrated to data layout ${state.migrating.to} (since ${state.migrating.startedAt.toISOString()}), ` +
      `or a migration stopped half-way; this server knows layout ${currentLayout}. Run \`loyalty-admin migrate\` to finish it.`
    );
  }
  const found = state.version ?? 'none';
  if (state.version !== null && state.version > currentLayout) {
    return `The database holds data layout ${found}; this server knows layout ${currentLayout}, an older one. Deploy a server release that knows layout ${found}.`;
  }
  return `The database holds data layout ${found}; this server needs layout ${currentLayout}. Run \`loyalty-admin migrate\` to bring it to layout ${currentLayout} (docs/operating.md).`;
}

/** The collections whose documents make a database non-empty. */
const dataCollections = [
  collectionNames.clients,
  collectionNames.apiKeys,
  collectionNames.members,
  collectionNames.sessions,
  collectionNames.catalogueItems,
  collectionNames.redemptions,
  collectionNames.voucherDefinitions,
  collectionNames.wallets,
  collectionNames.reservations,
  collectionNames.audit,
];

export async function readLayout(db: Db): Promise<LayoutState> {
  const doc = await db.collection<LayoutDoc>(collectionNames.meta).findOne({ _id: layoutDocumentId });
  if (doc) return { version: doc.version, recorded: true, migrating: doc.migrating ?? null };
  return { version: await unrecordedLayout(db), recorded: false, migrating: null };
}

/** The layout of a database that does not record one: null when empty, else 1 or 2. */
async function unrecordedLayout(db: Db): Promise<number | null> {
  let empty = true;
  for (const name of dataCollections) {
    if (await db.collection(name).findOne({}, { projection: { _id: 1 } })) {
      empty = false;
      break;
    }
  }
  if (empty) return null;
  const inline = await db
    .collection(collectionNames.wallets)
    .findOne({ $or: [{ reservations: { $exists: true } }, { totals: { $exists: false } }] }, { projection: { _id: 1 } });
  return inline ? 1 : 2;
}

/** Records `version` as the database's layout (and ends a migration's mark). */
export async function recordLayout(db: Db, version: number, now = new Date()): Promise<void> {
  await db
    .collection<LayoutDoc>(collectionNames.meta)
    .updateOne({ _id: layoutDocumentId }, { $set: { version, since: now }, $unset: { migrating: '' } }, { upsert: true });
}

/**
 * What a server does at start: an empty database gets the current layout;
 * a database of the current layout is served; anything else stops the start.
 * Says whether the database was empty (no process of an earlier release
 * ever served it).
 */
export async function prepareLayout(db: Db): Promise<{ empty: boolean }> {
  const state = await readLayout(db);
  if (state.version === null && !state.migrating) {
    await recordLayout(db, currentLayout);
    return { empty: true };
  }
  if (state.version !== currentLayout || state.migrating) throw new LayoutMismatchError(state);
  return { empty: false };
}
