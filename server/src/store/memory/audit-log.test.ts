import type { AuditEntry } from '../../domain/model';
import { auditEntry } from '../test-support/records';
import { AuditLog } from './audit-log';
import { packAudit } from './packed';

/** The entry of `walletVersion` on `rt-1`, one second apart; `shares` members make it as long as a test needs. */
function entry(walletVersion: number, shares = 1): AuditEntry {
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, walletVersion)).toISOString();
  const built = auditEntry('rt-1', at, 10, { correlationId: 'm-0', walletVersion });
  if (shares === 1) return built;
  const contributions = Array.from({ length: shares }, (_, i) => ({ correlationId: `m-${i}`, points: 10 }));
  return { ...built, before: { ...built.before!, contributions }, after: { ...built.after, contributions }, shares: contributions };
}

describe('AuditLog', () => {
  // A chunk holds two packed entries of one share (all the same size here),
  // so the rows cross chunk boundaries; the 40-share entry is larger than one.
  const chunkBytes = 2 * Buffer.byteLength(packAudit(entry(1)));
  it.each([
    ['entries within one chunk', chunkBytes, [entry(1)]],
    ['entries across several chunks', chunkBytes, [1, 2, 3, 4, 5].map((v) => entry(v))],
    ['an entry larger than a chunk, between small ones', chunkBytes, [entry(1), entry(2, 40), entry(3)]],
  ])('gives back %s, in order and unchanged', (_name, size, entries) => {
    const log = new AuditLog(size);
    for (const e of entries) log.append(e);
    expect(log.list('rt-1')).toStrictEqual(entries);
  });

  it('stores the same change once, whatever chunk holds the first copy', () => {
    const log = new AuditLog(chunkBytes);
    for (const version of [1, 2, 3, 1, 3]) log.append(entry(version));
    expect(log.list('rt-1').map((e) => e.walletVersion)).toEqual([1, 2, 3]);
  });

  it('forgets everything on clear, and appends again from a fresh chunk', () => {
    const log = new AuditLog(chunkBytes);
    for (const version of [1, 2, 3]) log.append(entry(version));
    log.clear();
    expect(log.list('rt-1')).toEqual([]);
    log.append(entry(2));
    expect(log.list('rt-1')).toStrictEqual([entry(2)]);
  });
});
