import type { AuditEntry } from '../../domain/model';
import { packAudit, unpackAudit } from './packed';

/** Bytes per chunk of the log; an entry is a few hundred. */
const chunkBytes = 1 << 20;


/**
 * The memory store's audit trail: append-only, entries packed as UTF-8 JSON
 * bytes in 1 MB buffers outside the JavaScript heap, with a small index per
 * reservation token (entry ids and positions).
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
  private used = chunkBytes;
  /** Per token: entry ids, and for each entry three numbers (chunk, offset, length). */
  private readonly byToken = new Map<string, { ids: string[]; refs: number[] }>();

  /** Stores `entry` unless an entry with its id is already stored for its token (the same change copied twice). */
  append(entry: AuditEntry): void {
    let index = this.byToken.get(entry.reservationToken);
    if (!index) this.byToken.set(entry.reservationToken, (index = { ids: [], refs: [] }));
    if (index.ids.includes(entry.id)) return;
    index.ids.push(entry.id);
    this.write(packAudit(entry), index.refs);
  }

  /** The entries of one token, as fresh records, in the order they were appended. */
  list(reservationToken: string): AuditEntry[] {
    const index = this.byToken.get(reservationToken);
    if (!index) return [];
    const entries: AuditEntry[] = [];
    for (let i = 0; i < index.refs.length; i += 3) {
      const [chunk, offset, length] = [index.refs[i]!, index.refs[i + 1]!, index.refs[i + 2]!];
      entries.push(unpackAudit(this.chunks[chunk]!.toString('utf8', offset, offset + length)));
    }
    return entries;
  }

  clear(): void {
    this.chunks = [];
    this.used = chunkBytes;
    this.byToken.clear();
  }

  /** Writes `text` and appends its position to `refs`. */
  private write(text: string, refs: number[]): void {
    const length = Buffer.byteLength(text, 'utf8');
    if (this.used + length > chunkBytes) {
      // A new chunk; an entry larger than a chunk gets one of its own size.
      this.chunks.push(Buffer.allocUnsafeSlow(Math.max(chunkBytes, length)));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    const offset = this.used;
    this.chunks[chunk]!.write(text, offset, 'utf8');
    this.used += length;
    refs.push(chunk, offset, length);
  }
}
