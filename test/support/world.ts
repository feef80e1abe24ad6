import type { Clock } from '../../server/src/domain/clock';
import type { AuditEntry, Wallet } from '../../server/src/domain/model';
import type { RunningServer } from '../../server/src/main';
import { wrapStore } from '../../server/src/store/store-wrapper';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import { faultInjecting, type FaultInjectingStore } from '../../server/src/store/test-support/fault-injecting-store';
import type { Store } from '../../server/src/store/port';
import { startTestApp } from '../../server/src/test-support/app-harness';
import { dailyCaps, reliabilityFixture, t0, testKeyPrefix, walletIds } from './fixture';
import { api, type Api } from './http';
import { auditProblems, conservationProblems, totalsProblems, type AuditSummary } from './invariants';
import { everyCall, StoreSpy, withLatency, type LatencyControl, type LatencyOptions } from './stores';

/**
 * A running system for the reliability tests: N instances of the real server
 * (the test harness: main's own start-up, graceful shutdown included), each
 * with its own services, all over ONE store:
 *
 *   services -> FaultInjectingStore -> StoreSpy -> LatencyStore -> base store
 *
 * The base store is a MemoryStore unless one is given (the MongoDB variants).
 */

export interface WorldOptions {
  instances?: number;
  baseStore?: Store;
  /** Default: every call yields once to the event loop (setImmediate). */
  latency?: LatencyOptions;
  rateLimitPerMinute?: number;
  bodyLimitBytes?: number;
  shutdownGraceMs?: number;
  /** 'fixed' (default): starts at t0 and moves only with advance(); 'moving': t0 plus real elapsed time times `clockSpeed`. */
  clock?: 'fixed' | 'moving';
  clockSpeed?: number;
  fixture?: unknown;
}

export interface World {
  urls: string[];
  apis: Api[];
  running: RunningServer[];
  faults: FaultInjectingStore;
  /** Calls the services made, by store method (faulted ones included); clear it at will. */
  calls: Map<string, number>;
  spy: StoreSpy;
  latency: LatencyControl;
  /** The store under the wrappers: read it to check state without faults or latency. */
  base: Store;
  clock: Clock;
  advance(seconds: number): void;
  logs: LogSink;
  initial: Map<string, Wallet>;
  wallets(): Promise<Map<string, Wallet | null>>;
  /** Conservation problems of the current state (empty: all is well). */
  conservation(): Promise<string[]>;
  /** Audit trail against the current state, since the last restore. */
  audit(): Promise<AuditSummary>;
  /** Waits for what the instances' answers left to do (the store's outbox), before reading the trail. */
  settled(): Promise<void>;
  /** Puts every wallet back to its fixture state and forgets the audit seen so far. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Collects the server's log lines: error lines kept, every line checked for credentials. */
export class LogSink {
  readonly errors: Array<Record<string, unknown>> = [];
  readonly credentialLeaks: string[] = [];
  lines = 0;
  /** Session tokens and API keys: `st_` + 32 base64url characters, every test key (`testKeyPrefix`), bearer headers. */
  private readonly secret = new RegExp(`st_[A-Za-z0-9_-]{32}|${testKeyPrefix}|Bearer `);

  write(line: string): void {
    this.lines++;
    const match = this.secret.exec(line);
    if (match && this.credentialLeaks.length < 20) this.credentialLeaks.push(line.slice(0, 300));
    if (/"level":"(error|fatal)"/.test(line) && this.errors.length < 200) this.errors.push(JSON.parse(line) as Record<string, unknown>);
  }
}

/** A key no reservation has: a slice read for the wallet's totals only. */
const noKey = { clientId: '', correlationId: '', reservationToken: '' };

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  let fixedMs = t0;
  const startedReal = Date.now();
  const clock: Clock =
    options.clock === 'moving'
      ? () => new Date(t0 + Math.round((Date.now() - startedReal) * (options.clockSpeed ?? 1)) + (fixedMs - t0))
      : () => new Date(fixedMs);
  const base = options.baseStore ?? new MemoryStore({ clock, sessionSweepIntervalMs: 0 });
  const calls = new Map<string, number>();
  let chain: { latency: LatencyControl; spy: StoreSpy; faults: FaultInjectingStore } | undefined;
  const wrap = (store: Store): Store => {
    const latency = withLatency(store, options.latency ?? { minMs: 0, maxMs: 0 });
    const spy = new StoreSpy(latency.store);
    const faults = faultInjecting(spy.store);
    chain = { latency, spy, faults };
    // Outermost: counts what the services ask for, faults included (did a request reach a method at all?).
    return wrapStore(
      faults,
      (method, _args, run) => {
        calls.set(method, (calls.get(method) ?? 0) + 1);
        return run();
      },
      everyCall,
    );
  };
  const logs = new LogSink();
  const app = await startTestApp({
    store: base,
    fixture: options.fixture ?? reliabilityFixture,
    clock,
    wrapStore: wrap,
    instances: options.instances ?? 1,
    config: {
      rateLimitPerMinute: options.rateLimitPerMinute ?? 0,
      bodyLimitBytes: options.bodyLimitBytes ?? 16384,
      shutdownGraceMs: options.shutdownGraceMs ?? 10_000,
    },
    // The production wiring as it is: these tests judge the answers themselves (answers.ts).
    validateResponses: false,
    log: (line) => logs.write(line),
  });
  const { latency, spy, faults } = chain!;

  const initial = new Map<string, Wallet>();
  for (const id of walletIds) {
    const wallet = await base.loadWallet(id);
    if (wallet) initial.set(id, wallet);
  }
  const { running, urls } = app;

  // What the answers left to do: the store's outbox deliveries.
  const settled = () => app.settled();

  const wallets = async () => {
    const state = new Map<string, Wallet | null>();
    for (const id of walletIds) state.set(id, await base.loadWallet(id));
    return state;
  };

  return {
    urls,
    apis: urls.map((url) => api(url)),
    running,
    faults,
    calls,
    spy,
    latency,
    base,
    clock,
    advance: (seconds) => {
      fixedMs += seconds * 1000;
    },
    logs,
    initial,
    wallets,
    conservation: async () => {
      const state = await wallets();
      const totals: string[] = [];
      for (const [id, wallet] of state) totals.push(...totalsProblems(id, wallet, await base.loadWalletSlice(id, noKey)));
      return [...conservationProblems({ wallets: state, initial, now: clock(), caps: dailyCaps }), ...totals];
    },
    audit: async () => {
      await settled();
      // First, before any read of a wallet delivers what is left: every change's entry is in the trail, once.
      const trail = await trailProblems(base, spy.audit);
      const summary = auditProblems(await wallets(), initial, spy.audit);
      return { ...summary, problems: [...trail, ...summary.problems] };
    },
    settled,
    restore: async () => {
      for (const [id, start] of initial) {
        const current = await base.loadWallet(id);
        const version = current?.version ?? 0;
        if (!(await base.saveWallet({ ...start, version }, version))) throw new Error(`restore of ${id} lost a race`);
      }
      spy.audit.splice(0);
    },
    close: () => app.close(),
  };
}

/** The entries of `accepted` (changes the store accepted) missing from the store's audit trail, or in it more than once. */
async function trailProblems(store: Store, accepted: readonly AuditEntry[]): Promise<string[]> {
  const problems: string[] = [];
  const byToken = new Map<string, AuditEntry[]>();
  for (const entry of accepted) byToken.set(entry.reservationToken, [...(byToken.get(entry.reservationToken) ?? []), entry]);
  for (const [token, entries] of byToken) {
    const trail = await store.listAudit(token);
    for (const entry of entries) {
      const found = trail.filter((t) => t.id === entry.id).length;
      if (found !== 1) problems.push(`audit trail of ${token}: the entry of ${entry.id} is there ${found} times`);
    }
  }
  return problems;
}
