import type { AuditEntry } from '../../domain/model';
import type { Store } from '../../store/port';

/** Wallets whose copied version is remembered; forgetting one costs an idempotent write. */
const rememberedWallets = 10_000;

/**
 * Copies a change's audit entry from its wallet to the audit trail.
 *
 * The entry is stored with the change itself (the wallet's `pendingAudit`),
 * so copying it can wait until after the answer: if that copy fails, or the
 * process stops first, the next change of the wallet copies it before
 * changing anything (the entry is never lost). Per wallet, the version
 * copied last is remembered, and a copy under way is shared, so a wallet's
 * next request does not copy the same entry again.
 */
export class AuditCopies {
  private readonly copied = new Map<string, number>();
  private readonly underway = new Map<string, { version: number; done: Promise<void> }>();

  constructor(private readonly store: Pick<Store, 'appendAudit'>) {}

  /** Resolves once the entry is in the trail. */
  copy(entry: AuditEntry): Promise<void> {
    return this.start(entry, () => this.store.appendAudit(entry));
  }

  /** Starts the copy once the answer has gone out (the next turn of the event loop), without waiting for it. */
  copyInBackground(entry: AuditEntry): void {
    const afterAnswer = new Promise<void>((resolve) => setImmediate(resolve));
    this.start(entry, () => afterAnswer.then(() => this.store.appendAudit(entry))).catch(() => undefined);
  }

  private start(entry: AuditEntry, append: () => Promise<void>): Promise<void> {
    if (this.copied.get(entry.walletId) === entry.walletVersion) return Promise.resolve();
    const current = this.underway.get(entry.walletId);
    if (current?.version === entry.walletVersion) return current.done;
    const done = append().then(() => {
      if (this.copied.size >= rememberedWallets) this.copied.clear();
      this.copied.set(entry.walletId, entry.walletVersion);
    });
    const record = { version: entry.walletVersion, done };
    this.underway.set(entry.walletId, record);
    const forget = () => {
      if (this.underway.get(entry.walletId) === record) this.underway.delete(entry.walletId);
    };
    done.then(forget, forget);
    return done;
  }

  /** Waits for the copies under way (before the store closes, or before a test reads the trail). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.underway.values()].map((copy) => copy.done));
  }
}
