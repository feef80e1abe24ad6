import type { AuditEntry, ReservationKey, ReservationRecord, Wallet, ReservationChange } from '../../server/src/domain/model';
import { deepCopy } from '../../server/src/store/copy';
import { wrapStore } from '../../server/src/store/store-wrapper';
import type { Store, StoreMethod } from '../../server/src/store/port';

/**
 * Store wrappers for the reliability tests. They sit between the services and
 * the real store (memory or MongoDB):
 *
 *   services -> fault-injecting store -> StoreSpy -> LatencyStore -> real store
 *
 * so an injected fault never reaches the spy (nothing was called), the spy sees
 * exactly what the services hand to the store, and latency makes concurrent
 * requests interleave between their load and their save, as they do against a
 * networked database. (Against the bare MemoryStore every call resolves in a
 * microtask, so one request runs from load to save before the next one even
 * starts: a race test over it proves nothing.)
 */

/** The wrappers offer no voucher definitions version: every listing reaches the store, and them. */
export const everyCall = { forwardVersion: false } as const;

/** Deterministic PRNG (mulberry32), so a latency pattern can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface LatencyOptions {
  /** Each call waits a random time in [minMs, maxMs]; 0/0 still yields to the event loop (setImmediate). */
  minMs: number;
  maxMs: number;
  seed?: number;
}

export interface LatencyControl {
  store: Store;
  /** Changes the latency from now on. */
  set(options: Partial<LatencyOptions>): void;
  /**
   * Holds every call of `methods` (default: every call but close) from now
   * on, until the returned function releases them: the requests that made
   * them are provably in flight (a store that does not answer, for as long
   * as the test says).
   */
  hold(methods?: readonly StoreMethod[]): () => void;
  /** Calls held at the moment. */
  readonly held: number;
}

/** Delays every call (close excepted) by a random time; models a store across a network. */
export function withLatency(inner: Store, options: LatencyOptions): LatencyControl {
  let { minMs, maxMs } = options;
  const random = prng(options.seed ?? 1);
  let gate: { methods: readonly StoreMethod[] | null; closed: Promise<void> } | null = null;
  let held = 0;
  const wait = (): Promise<void> => {
    const ms = minMs + Math.floor(random() * (maxMs - minMs + 1));
    return new Promise((resolve) => (ms <= 0 ? setImmediate(resolve) : setTimeout(resolve, ms)));
  };
  const passGate = async (closed: Promise<void>): Promise<void> => {
    held++;
    try {
      await closed;
    } finally {
      held--;
    }
  };
  const store = wrapStore(
    inner,
    async (method, _args, run) => {
      if (method === 'close') return run();
      if (gate && (gate.methods === null || gate.methods.includes(method))) await passGate(gate.closed);
      await wait();
      return run();
    },
    everyCall,
  );
  return {
    store,
    set(next) {
      minMs = next.minMs ?? minMs;
      maxMs = next.maxMs ?? maxMs;
    },
    hold(methods) {
      let open: () => void = () => undefined;
      const closed = new Promise<void>((resolve) => (open = resolve));
      const own = { methods: methods ?? null, closed };
      gate = own;
      return () => {
        if (gate === own) gate = null;
        open();
      };
    },
    get held() {
      return held;
    },
  };
}

const writeMethods = new Set<StoreMethod>([
  'insertSession',
  'saveWallet',
  'saveReservationChange',
  'upsertClients',
  'upsertMembers',
  'upsertCatalogueItems',
  'upsertRedemptions',
  'upsertVoucherDefinitions',
]);

/**
 * Positions of the arguments of each lookup that carry values from requests
 * (path, headers, body) and end up in a query: they must be plain strings.
 * An object such as `{ "$gt": "" }` there would be an operator injection.
 */
const keyArguments: Partial<Record<StoreMethod, number[]>> = {
  findApiKey: [0],
  findApiKeyById: [0],
  findClient: [0],
  listApiKeys: [0],
  findMember: [0],
  findSession: [0],
  findSessionContext: [0],
  listPublishedVoucherDefinitions: [0, 1],
  findRedemption: [0],
  loadWallet: [0],
  loadWalletSlice: [0],
  listAudit: [0],
};

/**
 * Records what reaches the store and checks every argument on the way:
 * lookup keys are strings, wallets and audit entries hold whole, finite
 * points and plain string ids. Violations are collected, not thrown, so the
 * request goes on as it would in production and the test reports them.
 */
export class StoreSpy {
  readonly store: Store;
  /** Successful writes, in order. */
  writes = 0;
  /** The audit entry of every change the store accepted (carried by each successful wallet save), in the order it accepted them. */
  readonly audit: AuditEntry[] = [];
  private readonly auditIds = new Set<string>();
  readonly violations: string[] = [];
  /** Run once, right after the next wallet save succeeds (before its caller goes on). */
  private afterSave: (() => void) | null = null;

  constructor(inner: Store) {
    this.store = wrapStore(inner, (method, args, run) => this.watch(method, args, run), everyCall);
  }

  private async watch(method: StoreMethod, args: readonly unknown[], run: () => Promise<unknown>): Promise<unknown> {
    this.check(method, args);
    const result = await run();
    const walletSave = method === 'saveWallet' || method === 'saveReservationChange';
    if (writeMethods.has(method) && (!walletSave || result === true)) this.writes++;
    if (walletSave && result === true) {
      const audit = (args[0] as Wallet | ReservationChange).audit;
      if (audit) this.recordAudit(audit);
    }
    if (walletSave && result === true && this.afterSave) {
      const hook = this.afterSave;
      this.afterSave = null;
      hook();
    }
    return result;
  }

  private recordAudit(entry: AuditEntry): void {
    if (this.auditIds.has(entry.id)) return;
    this.auditIds.add(entry.id);
    this.audit.push(deepCopy(entry));
  }

  /** Calls `hook` right after the next successful wallet save (whole, or a reservation change): e.g. the store goes away between a write and the next call. */
  afterNextSave(hook: () => void): void {
    this.afterSave = hook;
  }

  private check(method: StoreMethod, args: readonly unknown[]): void {
    for (const index of keyArguments[method] ?? []) {
      if (typeof args[index] !== 'string') this.violate(`${method} argument ${index} is not a string: ${describe(args[index])}`);
    }
    if (method === 'findCatalogueItems') {
      const codes = args[0];
      if (!Array.isArray(codes) || codes.some((code) => typeof code !== 'string')) {
        this.violate(`findCatalogueItems got codes that are not all strings: ${describe(codes)}`);
      }
    }
    if (method === 'saveWallet') this.checkWallet(args[0] as Wallet, args[1]);
    if (method === 'loadWalletSlice') this.checkKey(args[1] as ReservationKey);
    if (method === 'saveReservationChange') this.checkChange(args[0] as ReservationChange, args[1]);
  }

  private checkWallet(wallet: Wallet, expectedVersion: unknown): void {
    if (!Number.isSafeInteger(expectedVersion)) this.violate(`saveWallet expectedVersion ${describe(expectedVersion)}`);
    if (typeof wallet.walletId !== 'string') this.violate(`saveWallet walletId ${describe(wallet.walletId)}`);
    for (const balance of wallet.balances) {
      if (!isWholePoints(balance.pointBalance)) this.violate(`wallet ${wallet.walletId}: balance of ${balance.correlationId} is ${balance.pointBalance}`);
    }
    this.checkReservations(wallet.walletId, wallet.reservations);
    if (wallet.audit) this.checkAudit(wallet.audit);
  }

  private checkReservations(walletId: string, reservations: readonly ReservationRecord[]): void {
    if (typeof walletId !== 'string') this.violate(`walletId ${describe(walletId)}`);
    for (const r of reservations) {
      for (const field of ['reservationToken', 'clientId', 'correlationId', 'identifierType'] as const) {
        if (typeof r[field] !== 'string') this.violate(`wallet ${walletId}: reservation ${field} is ${describe(r[field])}`);
      }
      if (!isWholePoints(r.reservationAmount)) this.violate(`wallet ${walletId}: ${r.reservationToken} amount is ${r.reservationAmount}`);
      for (const c of r.contributions) {
        if (!isWholePoints(c.points)) this.violate(`wallet ${walletId}: ${r.reservationToken} contribution of ${c.correlationId} is ${c.points}`);
      }
    }
  }

  private checkKey(key: ReservationKey, what = 'loadWalletSlice key'): void {
    for (const field of ['clientId', 'correlationId', 'reservationToken'] as const) {
      if (typeof key?.[field] !== 'string') this.violate(`${what} ${field} is not a string: ${describe(key?.[field])}`);
    }
  }

  private checkChange(change: ReservationChange, expectedVersion: unknown): void {
    if (!Number.isSafeInteger(expectedVersion)) this.violate(`saveReservationChange expectedVersion ${describe(expectedVersion)}`);
    this.checkReservations(change.walletId, [change.reservation]);
    for (const key of change.expired ?? []) this.checkKey(key, 'saveReservationChange expired');
    for (const h of change.totals.held) if (!isWholePoints(h.points)) this.violate(`wallet ${change.walletId}: totals hold ${h.points} for ${h.correlationId}`);
    for (const d of change.totals.daily) if (!isWholePoints(d.points)) this.violate(`wallet ${change.walletId}: daily total ${d.points}`);
    if (!Number.isSafeInteger(change.totals.count) || change.totals.count < 1) this.violate(`wallet ${change.walletId}: count ${change.totals.count}`);
    if (change.audit) this.checkAudit(change.audit);
  }

  private checkAudit(entry: AuditEntry): void {
    for (const field of ['clientId', 'sessionId', 'correlationId', 'reservationToken'] as const) {
      if (typeof entry[field] !== 'string') this.violate(`audit ${field} is ${describe(entry[field])}`);
    }
    for (const share of entry.shares) {
      if (!Number.isSafeInteger(share.points)) this.violate(`audit ${entry.reservationToken}: share of ${share.correlationId} is ${share.points}`);
    }
  }

  private violate(message: string): void {
    if (this.violations.length < 100) this.violations.push(message);
  }
}

function isWholePoints(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 120) ?? String(value);
  } catch {
    return String(value);
  }
}
