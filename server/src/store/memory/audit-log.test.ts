import { newAuditEntryId, type AuditEntry } from '../../domain/model';
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
    const changes = [1, 2, 3].map((version) => ({ ...entry(version), id: newAuditEntryId('member:m-0', version) }));
    for (const i of [0, 1, 2, 0, 2]) log.append(changes[i]!);
    expect(log.list('rt-1')).toStrictEqual(changes);
  });

  it('keeps two changes that made the same wallet version (a wallet reset, or restored, while the trail is kept), each once', () => {
    const log = new AuditLog(chunkBytes);
    const before = { ...entry(1), id: newAuditEntryId('member:m-0', 1) };
    const after = { ...entry(1), id: newAuditEntryId('member:m-0', 1), at: new Date(Date.UTC(2031, 0, 1)) };
    for (const e of [before, after, before, after]) log.append(e);
    expect(log.list('rt-1')).toStrictEqual([before, after]);
    expect(before.id).not.toBe(after.id);
  });

  it.each([
    ['of an earlier layout (wallet and version only)', 'member:m-0@1'],
    ['of any other form', 'imported-7'],
  ])('stores an entry with an id %s once, and gives its id back as it was', (_name, id) => {
    const log = new AuditLog(chunkBytes);
    const legacy = { ...entry(1), id };
    const usual = { ...entry(1), id: newAuditEntryId('member:m-0', 1) };
    for (const e of [legacy, usual, legacy, usual]) log.append(e);
    expect(log.list('rt-1')).toStrictEqual([legacy, usual]);
  });

  it('forgets everything on clear, and appends again from a fresh chunk', () => {
    const log = new AuditLog(chunkBytes);
    for (const version of [1, 2, 3]) log.append(entry(version));
    log.clear();
    expect(log.list('rt-1')).toEqual([]);
    const again = { ...entry(2), id: newAuditEntryId('member:m-0', 2) };
    log.append(again);
    expect(log.list('rt-1')).toStrictEqual([again]);
  });
});
