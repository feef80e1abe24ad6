import { collectionNames } from '../collections';
import type { ApiKeyDoc } from '../documents';
import type { Migration } from './migration';

/**
 * Layout 4 to 5: API keys have a kind. Every key written before is a secret
 * key (the only kind there was) with no origins. A layout 4 server reads
 * any key as one that starts sessions from anywhere, so it must never serve
 * a database that may hold publishable keys: hence a layout of its own,
 * which such a server refuses. Idempotent: only keys without a kind are
 * written, in one update.
 */
type Layout4Key = Omit<ApiKeyDoc, 'kind' | 'origins'> & { kind?: ApiKeyDoc['kind']; origins?: string[] };

export const toLayout5: Migration = {
  to: 5,
  name: 'secret and publishable API keys',
  async run(db, progress) {
    const keys = db.collection<Layout4Key>(collectionNames.apiKeys);
    const filter = { kind: { $exists: false } };
    const total = await keys.countDocuments(filter);
    progress(this.name, 0, total);
    await keys.updateMany(filter, { $set: { kind: 'secret', origins: [] } });
    progress(this.name, total, total);
  },
};
