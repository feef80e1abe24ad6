import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/*
 * The server's Prometheus metrics (prom-client), served as text on
 * `GET /metrics`. Every label has a bounded set of values: the spec's
 * operationIds (or `other`), HTTP status codes, store method names, error
 * kinds. No member, token or key is ever a label.
 *
 * | metric                                      | type      | labels            | what it counts                                          |
 * |---------------------------------------------|-----------|-------------------|---------------------------------------------------------|
 * | loyalty_http_requests_total                  | counter   | operation, status | answers given                                           |
 * | loyalty_http_request_duration_seconds        | histogram | operation         | time from the request's first byte to its answer        |
 * | loyalty_store_operation_duration_seconds     | histogram | method            | time of each store call (the Store port's methods)      |
 * | loyalty_store_operation_errors_total         | counter   | method, kind      | store calls that failed: `unavailable` (503) or `error` |
 * | loyalty_store_reachable                      | gauge     |                   | 1 when the last watchdog check reached the database     |
 * | loyalty_store_client_replacements_total      | counter   | outcome           | stuck MongoDB clients replaced (`replaced`, `failed`)   |
 * | loyalty_mongodb_commands_total               | counter   | command, collection | commands sent to MongoDB (see `mongoCommand`)         |
 * | loyalty_outbox_sweep_commands_total          | counter   | command, collection | of those, the outbox sweep's (its deliveries included) |
 * | loyalty_rate_limit_rejections_total          | counter   |                   | requests answered 429                                   |
 * | loyalty_points_reserved_total                | counter   |                   | points taken into reservations (offline creations)      |
 * | loyalty_points_returned_total                | counter   |                   | points given back by lowering reservations              |
 * | loyalty_cache_lookups_total                  | counter   | cache, result     | lookups of a process's caches: `hit` or `miss` (store)  |
 * | loyalty_outbox_pending                       | gauge     |                   | outboxes past the grace, undelivered, at the last sweep |
 * | loyalty_outbox_oldest_pending_seconds        | gauge     |                   | age of the oldest of them (0: none)                     |
 * | loyalty_rate_limit_counting_alone            | gauge     |                   | 1 while the process counts the rate limit on its own    |
 * | loyalty_build_info                           | gauge     | version, node_version | 1: the server's version and the Node.js it runs on  |
 * | process_*, nodejs_*                          |           |                   | prom-client's process metrics (CPU, memory, event loop) |
 */

/** Seconds; from a tenth of a millisecond (the embedded store) to ten seconds (a store timing out). */
const latencyBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** How often the event loop's delay is sampled (nodejs_eventloop_lag_* metrics). */
const eventLoopSampleMs = 100;

export type StoreErrorKind = 'unavailable' | 'error';

export interface MetricsOptions {
  /** prom-client's process metrics: once per process (`main`), not per app (tests build many). */
  processMetrics?: boolean;
  /** The server's version, for `loyalty_build_info` (absent: that metric is not shown). */
  version?: string;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({ name: 'loyalty_http_requests_total', help: 'HTTP answers, by operation (the spec operationId, or other) and status.', labelNames: ['operation', 'status'], registers: [this.registry] });
  private readonly requestDuration = new Histogram({ name: 'loyalty_http_request_duration_seconds', help: 'Time to answer a request, by operation.', labelNames: ['operation'], buckets: latencyBuckets, registers: [this.registry] });
  private readonly storeDuration = new Histogram({ name: 'loyalty_store_operation_duration_seconds', help: 'Time of each store call, by Store method.', labelNames: ['method'], buckets: latencyBuckets, registers: [this.registry] });
  private readonly storeErrors = new Counter({ name: 'loyalty_store_operation_errors_total', help: 'Store calls that failed, by method and kind (unavailable: answered 503; error: unexpected).', labelNames: ['method', 'kind'], registers: [this.registry] });
  private readonly storeReachable = new Gauge({ name: 'loyalty_store_reachable', help: '1 when the last check reached the database, else 0.', registers: [this.registry] });
  private readonly replacements = new Counter({ name: 'loyalty_store_client_replacements_total', help: 'Stuck MongoDB clients replaced by the watchdog, by outcome.', labelNames: ['outcome'], registers: [this.registry] });
  private readonly mongoCommands = new Counter({ name: 'loyalty_mongodb_commands_total', help: 'Commands sent to MongoDB, by command name and collection (other: any other, or none).', labelNames: ['command', 'collection'], registers: [this.registry] });
  private readonly sweepCommands = new Counter({
    name: 'loyalty_outbox_sweep_commands_total',
    help: "Of loyalty_mongodb_commands_total, the outbox sweep's commands (its reads, and the deliveries and clears it writes), by command name and collection.",
    labelNames: ['command', 'collection'],
    registers: [this.registry],
  });
  private readonly rateLimited = new Counter({
    name: 'loyalty_rate_limit_rejections_total',
    help: "Requests refused with 429, by the limit that refused them: an API key's, a session's, or a client address's refusals for credentials.",
    labelNames: ['limit'],
    registers: [this.registry],
  });
  private readonly reserved = new Counter({ name: 'loyalty_points_reserved_total', help: 'Points taken into reservations.', registers: [this.registry] });
  private readonly returned = new Counter({ name: 'loyalty_points_returned_total', help: 'Points given back by lowered reservations.', registers: [this.registry] });
  private readonly outboxPending = new Gauge({ name: 'loyalty_outbox_pending', help: 'Outboxes older than the grace and not delivered, as the last outbox sweep left them (MongoDB; counted up to 10,000 per sweep bucket).', registers: [this.registry] });
  /** When the oldest undelivered outbox the last sweep saw was saved (epoch ms); null: none. */
  private oldestPendingAt: number | null = null;
  private readonly outboxOldest: Gauge = new Gauge({
    name: 'loyalty_outbox_oldest_pending_seconds',
    help: 'Age of the oldest outbox the last outbox sweep left undelivered, in seconds (0: none).',
    registers: [this.registry],
    collect: (): void => this.outboxOldest.set(this.oldestPendingAt === null ? 0 : Math.max(0, (Date.now() - this.oldestPendingAt) / 1000)),
  });
  private countingAlone: () => boolean = () => false;
  private readonly rateLimitAlone: Gauge = new Gauge({
    name: 'loyalty_rate_limit_counting_alone',
    help: '1 while this process counts the rate limit on its own (MongoDB taken as away: each process admits its share), else 0.',
    registers: [this.registry],
    collect: (): void => this.rateLimitAlone.set(this.countingAlone() ? 1 : 0),
  });
  private readonly buildInfo = new Gauge({ name: 'loyalty_build_info', help: "1; its labels name the server's version and the Node.js version the process runs on.", labelNames: ['version', 'node_version'], registers: [this.registry] });
  private readonly cacheLookups = new Counter({ name: 'loyalty_cache_lookups_total', help: 'Lookups of the process caches (apiKeys, sessions, listings), by result: hit (answered without the store) or miss.', labelNames: ['cache', 'result'], registers: [this.registry] });

  // Label children looked up once (a label lookup hashes its values on every call).
  private readonly requestChildren = new Map<string, Counter.Internal>();
  private readonly durationChildren = new Map<string, Histogram.Internal<'operation'>>();
  private readonly storeChildren = new Map<string, Histogram.Internal<'method'>>();
  private readonly cacheChildren = new Map<string, Counter.Internal>();
  private readonly commandChildren = new Map<string, Counter.Internal>();
  private readonly sweepChildren = new Map<string, Counter.Internal>();

  constructor(options: MetricsOptions = {}) {
    // The event loop's delay sampled every eventLoopSampleMs: prom-client's default wakes an idle
    // process often enough to cost it more CPU than the requests of a quiet process.
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: eventLoopSampleMs });
    this.storeReachable.set(1);
    if (options.version !== undefined) this.buildInfo.labels(options.version, process.versions.node).set(1);
  }

  observeRequest(operation: string, status: number, seconds: number): void {
    const key = `${operation} ${status}`;
    let counter = this.requestChildren.get(key);
    if (!counter) this.requestChildren.set(key, (counter = this.requests.labels(operation, String(status))));
    counter.inc();
    let histogram = this.durationChildren.get(operation);
    if (!histogram) this.durationChildren.set(operation, (histogram = this.requestDuration.labels(operation)));
    histogram.observe(seconds);
  }

  observeStoreCall(method: string, seconds: number, failure: StoreErrorKind | null): void {
    let histogram = this.storeChildren.get(method);
    if (!histogram) this.storeChildren.set(method, (histogram = this.storeDuration.labels(method)));
    histogram.observe(seconds);
    if (failure) this.storeErrors.labels(method, failure).inc();
  }

  storeCheck(reachable: boolean): void {
    this.storeReachable.set(reachable ? 1 : 0);
  }

  clientReplacement(outcome: 'replaced' | 'failed'): void {
    this.replacements.labels(outcome).inc();
  }

  /**
   * One command a MongoDB client sent (the driver's `commandStarted`): the
   * store's own, the rate limit's count, and the readiness and watchdog
   * `ping`s, each under its name; never the driver's own monitoring
   * (heartbeats and connection handshakes are not command events). Its
   * labels come from a fixed set (store/mongo/command-labels.ts). One of
   * the outbox sweep (`sweep`) is counted in both counters: the sweep's
   * share of the commands, whatever requests came meanwhile.
   */
  mongoCommand({ command, collection, sweep = false }: { command: string; collection: string; sweep?: boolean }): void {
    const key = `${command} ${collection}`;
    let counter = this.commandChildren.get(key);
    if (!counter) this.commandChildren.set(key, (counter = this.mongoCommands.labels(command, collection)));
    counter.inc();
    if (!sweep) return;
    let swept = this.sweepChildren.get(key);
    if (!swept) this.sweepChildren.set(key, (swept = this.sweepCommands.labels(command, collection)));
    swept.inc();
  }

  /** What the last outbox sweep left undelivered past its grace: how many, and the oldest's save time. */
  outboxBacklog(pending: number, oldestPendingAt: Date | null): void {
    this.outboxPending.set(pending);
    this.oldestPendingAt = oldestPendingAt?.getTime() ?? null;
  }

  /** Where `loyalty_rate_limit_counting_alone` reads from, at each scrape. */
  watchRateLimit(countingAlone: () => boolean): void {
    this.countingAlone = countingAlone;
  }

  rateLimitRejection(limit: 'key' | 'session' | 'refused_credentials'): void {
    this.rateLimited.inc({ limit });
  }

  pointsMoved(reserved: number, returned: number): void {
    if (reserved > 0) this.reserved.inc(reserved);
    if (returned > 0) this.returned.inc(returned);
  }

  cacheLookup(cache: string, hit: boolean): void {
    const key = `${cache} ${hit}`;
    let counter = this.cacheChildren.get(key);
    if (!counter) this.cacheChildren.set(key, (counter = this.cacheLookups.labels(cache, hit ? 'hit' : 'miss')));
    counter.inc();
  }

  /** Prometheus text exposition format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
