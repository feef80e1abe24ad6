import { StoreUnavailableError, type Store, type StoreMethod } from '../port';

/** What a failing store does: look unreachable (503) or fail unexpectedly (500). */
export type Fault = 'unavailable' | 'error';

export type { StoreMethod } from '../port';

export interface FaultPlan {
  fault: Fault;
  /** Only these methods fail; all of them when absent. */
  methods?: StoreMethod[];
  /** Fail this many calls, then recover by itself; forever when absent. */
  times?: number;
}

/**
 * Wraps a store and fails its calls on demand, for tests of what the service
 * does when its store goes away (503, nothing half-written, recovery) and for
 * the Pact provider states that need a 500 or a 503.
 */
export class FaultInjectingStore implements Store {
  private plan: FaultPlan | null = null;

  constructor(private readonly inner: Store) {}

  /** Starts failing as planned; `null` heals the store. */
  inject(plan: FaultPlan | null): void {
    this.plan = plan ? { ...plan } : null;
  }

  private async call<R>(method: StoreMethod, run: () => Promise<R>): Promise<R> {
    const plan = this.plan;
    if (plan && (!plan.methods || plan.methods.includes(method))) {
      if (plan.times !== undefined && --plan.times <= 0) this.plan = null;
      throw plan.fault === 'unavailable'
        ? new StoreUnavailableError()
        : new Error(`injected fault in ${method}`);
    }
    return run();
  }

  findApiKey: Store['findApiKey'] = (d) => this.call('findApiKey', () => this.inner.findApiKey(d));
  findApiKeyById: Store['findApiKeyById'] = (id) => this.call('findApiKeyById', () => this.inner.findApiKeyById(id));
  findClient: Store['findClient'] = (id) => this.call('findClient', () => this.inner.findClient(id));
  listApiKeys: Store['listApiKeys'] = (id) => this.call('listApiKeys', () => this.inner.listApiKeys(id));
  insertApiKey: Store['insertApiKey'] = (k) => this.call('insertApiKey', () => this.inner.insertApiKey(k));
  updateApiKey: Store['updateApiKey'] = (c, k, change) => this.call('updateApiKey', () => this.inner.updateApiKey(c, k, change));
  upsertApiKeys: Store['upsertApiKeys'] = (r) => this.call('upsertApiKeys', () => this.inner.upsertApiKeys(r));
  findMember: Store['findMember'] = (id) => this.call('findMember', () => this.inner.findMember(id));
  insertSession: Store['insertSession'] = (s) => this.call('insertSession', () => this.inner.insertSession(s));
  findSession: Store['findSession'] = (h) => this.call('findSession', () => this.inner.findSession(h));
  findSessionContext: Store['findSessionContext'] = (h) => this.call('findSessionContext', () => this.inner.findSessionContext(h));
  listPublishedVoucherDefinitions: Store['listPublishedVoucherDefinitions'] = (bu, ch) =>
    this.call('listPublishedVoucherDefinitions', () => this.inner.listPublishedVoucherDefinitions(bu, ch));
  findCatalogueItems: Store['findCatalogueItems'] = (codes) => this.call('findCatalogueItems', () => this.inner.findCatalogueItems(codes));
  findRedemption: Store['findRedemption'] = (id) => this.call('findRedemption', () => this.inner.findRedemption(id));
  loadWallet: Store['loadWallet'] = (id) => this.call('loadWallet', () => this.inner.loadWallet(id));
  saveWallet: Store['saveWallet'] = (w, v) => this.call('saveWallet', () => this.inner.saveWallet(w, v));
  loadWalletSlice: Store['loadWalletSlice'] = (id, key, options) => this.call('loadWalletSlice', () => this.inner.loadWalletSlice(id, key, options));
  saveWalletSlice: Store['saveWalletSlice'] = (c, v) => this.call('saveWalletSlice', () => this.inner.saveWalletSlice(c, v));
  listAudit: Store['listAudit'] = (t) => this.call('listAudit', () => this.inner.listAudit(t));
  drainOutbox: Store['drainOutbox'] = () => this.inner.drainOutbox();
  upsertClients: Store['upsertClients'] = (r) => this.call('upsertClients', () => this.inner.upsertClients(r));
  upsertMembers: Store['upsertMembers'] = (r) => this.call('upsertMembers', () => this.inner.upsertMembers(r));
  upsertCatalogueItems: Store['upsertCatalogueItems'] = (r) => this.call('upsertCatalogueItems', () => this.inner.upsertCatalogueItems(r));
  upsertRedemptions: Store['upsertRedemptions'] = (r) => this.call('upsertRedemptions', () => this.inner.upsertRedemptions(r));
  upsertVoucherDefinitions: Store['upsertVoucherDefinitions'] = (r) =>
    this.call('upsertVoucherDefinitions', () => this.inner.upsertVoucherDefinitions(r));
  ping: Store['ping'] = () => this.call('ping', () => this.inner.ping());
  close: Store['close'] = () => this.inner.close();
}
