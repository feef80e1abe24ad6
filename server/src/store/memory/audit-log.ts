import type { AuditEntry } from '../../domain/model';
import { hasUsualId, packAudit, unpackAudit } from './packed';

/** Bytes per chunk of the log; an entry is a few hundred. */
const defaultChunkBytes = 1 << 20;

/**
 * The memory store's audit trail: append-only, entries packed as UTF-8 JSON
 * bytes in 1 MB buffers outside the JavaScript heap, with a small index per
 * reservation token (positions and wallet versions, plain numbers).
 *
 * The trail only grows (every update of a reservation adds an entry). Kept
 * as objects or strings on the heap, each entry also raised the garbage
 * collector's old-generation budget, which V8 sizes at a multiple of what is
 * live: the process grew by several times the trail itself over a long run.
 * Here it grows by about the bytes of the entries, and the collector has
 * almost nothing more to trace.
 */
export class AuditLog {
  private chunks: Buffer[] = [];
  /** Write position in the last chunk. */
  private used: number;

  /** `chunkBytes`: the size of each buffer (smaller in tests, to cross chunks with a few entries). */
  constructor(private readonly chunkBytes = defaultChunkBytes) {
    this.used = chunkBytes;
  }
  /** Per token, four numbers per entry: chunk, offset, length, wallet version (-1: an id of another form). */
  private readonly byToken = new Map<string, number[]>();

  /** Stores `entry` unless an entry with its id is already stored for its token (another save carrying the same entry). */
  append(entry: AuditEntry): void {
    let refs = this.byToken.get(entry.reservationToken);
    if (!refs) this.byToken.set(entry.reservationToken, (refs = []));
    // Usual ids start with their wallet and version, so only an entry of the
    // same version can have the same id (entries of one version but another
    // change, after a reset or a restore, differ in their random part). An id
    // of any other form (kept as version -1) is compared with every entry,
    // and every entry with it.
    const usual = hasUsualId(entry);
    for (let i = 0; i < refs.length; i += 4) {
      const version = refs[i + 3];
      const mayMatch = !usual || version === entry.walletVersion || version === -1;
      if (mayMatch && this.read(refs, i, entry.reservationToken).id === entry.id) return;
    }
    this.write(packAudit(entry, usual), refs);
    refs.push(usual ? entry.walletVersion : -1);
  }

  /** The entries of one token, as fresh records, in the order they were appended. */
  list(reservationToken: string): AuditEntry[] {
    const refs = this.byToken.get(reservationToken);
    if (!refs) return [];
    const entries: AuditEntry[] = [];
    for (let i = 0; i < refs.length; i += 4) entries.push(this.read(refs, i, reservationToken));
    return entries;
  }

  private read(refs: number[], i: number, reservationToken: string): AuditEntry {
    const [chunk, offset, length] = [refs[i]!, refs[i + 1]!, refs[i + 2]!];
    return unpackAudit(this.chunks[chunk]!.toString('utf8', offset, offset + length), reservationToken);
  }

  clear(): void {
    this.chunks = [];
    this.used = this.chunkBytes;
    this.byToken.clear();
  }

  /** Writes `text` and appends its position (chunk, offset, length) to `refs`. */
  private write(text: string, refs: number[]): void {
    const length = Buffer.byteLength(text, 'utf8');
    if (this.used + length > this.chunkBytes) {
      // A new chunk; an entry larger than a chunk gets one of its own size.
      this.chunks.push(Buffer.allocUnsafeSlow(Math.max(this.chunkBytes, length)));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    const offset = this.used;
    this.chunks[chunk]!.write(text, offset, 'utf8');
    this.used += length;
    refs.push(chunk, offset, length);
  }
}
