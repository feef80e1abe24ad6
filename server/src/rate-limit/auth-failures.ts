import { boundedCache } from '../caching/bounded-cache';
import { rateLimitWindowMs } from './windows';

/**
 * Client addresses whose refusals a process keeps at most (about 200 bytes
 * each: 10 MB at the bound). Past it the address seen least recently is
 * forgotten and starts again from nothing: a stranger needs more addresses
 * than this, each within its own budget, to be forgotten early.
 */
export const maxTrackedAddresses = 50_000;

/**
 * Past its budget, an address may still have one credential the process
 * does not know looked up this often: a partner that rolled its key while
 * its servers still sent the old one gets the new key through within it.
 */
export const lookupPastBudgetMs = 1000;

export interface AuthFailureOptions {
  /** Requests refused for their credentials an address may have per window before its lookups are limited. */
  perMinute: number;
  /** Milliseconds of a monotonic clock, never 0 (tests). Default `performance.now`. */
  now?: () => number;
  /** Default `maxTrackedAddresses`. */
  maxAddresses?: number;
  /** Default `rateLimitWindowMs`. */
  windowMs?: number;
}

interface AddressRefusals {
  refused: number;
  /** When the window that began with the address's first refusal ends. */
  resetAt: number;
  /** The last lookup allowed past the budget. */
  lastLookupAt: number;
}

/** Where an address stands: whether a lookup may go to the store, and when its window ends. */
export interface LookupVerdict {
  allowed: boolean;
  msBeforeReset: number;
}

/**
 * Requests refused for their credentials (401, 403), counted per client
 * address in this process's memory, so that a stranger trying keys or
 * tokens costs the database almost nothing: once an address has had
 * `perMinute` refusals in its window, a credential the process does not
 * know is looked up for it at most once per `lookupPastBudgetMs`; its other
 * requests are refused before any store command. Credentials the process
 * knows, and addresses within their budget, are not affected.
 */
export class AuthFailureLimiter {
  readonly perMinute: number;
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly addresses;

  constructor(options: AuthFailureOptions) {
    if (!(Number.isSafeInteger(options.perMinute) && options.perMinute > 0)) throw new RangeError(`perMinute must be a positive integer, got ${options.perMinute}`);
    this.perMinute = options.perMinute;
    this.now = options.now ?? (() => performance.now());
    this.windowMs = options.windowMs ?? rateLimitWindowMs;
    this.addresses = boundedCache<string, AddressRefusals>({ maxEntries: options.maxAddresses ?? maxTrackedAddresses, ttlMs: this.windowMs, now: this.now });
  }

  /** A request from `address` was refused for its credentials. */
  refused(address: string): void {
    const at = this.now();
    const known = this.current(address, at);
    if (known) known.refused++;
    else this.addresses.set(address, { refused: 1, resetAt: at + this.windowMs, lastLookupAt: -Infinity });
  }

  /** Whether a credential the process does not know may be looked up for a request from `address` now (counted as the one past the budget when it is). */
  lookUp(address: string): LookupVerdict {
    const at = this.now();
    const known = this.current(address, at);
    if (!known || known.refused < this.perMinute) return { allowed: true, msBeforeReset: this.windowMs };
    const allowed = at - known.lastLookupAt >= lookupPastBudgetMs;
    if (allowed) known.lastLookupAt = at;
    return { allowed, msBeforeReset: known.resetAt - at };
  }

  /** Addresses held now (tests of the bound). */
  get size(): number {
    return this.addresses.size;
  }

  private current(address: string, at: number): AddressRefusals | undefined {
    const known = this.addresses.get(address);
    return known && known.resetAt > at ? known : undefined;
  }
}
