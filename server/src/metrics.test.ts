import { Metrics } from './metrics';

/** The value of one sample line of the text exposition, e.g. `loyalty_outbox_pending 3`. */
async function sample(metrics: Metrics, series: string): Promise<number | undefined> {
  const line = (await metrics.render()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Metrics: what the promises depend on', () => {
  it('shows the backlog the last outbox sweep left: how many, and the age of the oldest at each scrape', async () => {
    const metrics = new Metrics();
    expect(await sample(metrics, 'loyalty_outbox_pending')).toBe(0);
    expect(await sample(metrics, 'loyalty_outbox_oldest_pending_seconds')).toBe(0);
    // The scrape's time, on a clock of the test's.
    const scrapedAt = Date.parse('2026-11-21T12:00:00.000Z');
    const now = jest.spyOn(Date, 'now').mockReturnValue(scrapedAt);
    try {
      metrics.outboxBacklog(3, new Date(scrapedAt - 90_000));
      expect(await sample(metrics, 'loyalty_outbox_pending')).toBe(3);
      expect(await sample(metrics, 'loyalty_outbox_oldest_pending_seconds')).toBe(90);
      now.mockReturnValue(scrapedAt + 30_000);
      expect(await sample(metrics, 'loyalty_outbox_oldest_pending_seconds')).toBe(120);
    } finally {
      now.mockRestore();
    }
    metrics.outboxBacklog(0, null);
    expect(await sample(metrics, 'loyalty_outbox_oldest_pending_seconds')).toBe(0);
  });

  it('shows 1 while the rate limit is counted by this process alone, read at each scrape', async () => {
    const metrics = new Metrics();
    expect(await sample(metrics, 'loyalty_rate_limit_counting_alone')).toBe(0);
    let alone = true;
    metrics.watchRateLimit(() => alone);
    expect(await sample(metrics, 'loyalty_rate_limit_counting_alone')).toBe(1);
    alone = false;
    expect(await sample(metrics, 'loyalty_rate_limit_counting_alone')).toBe(0);
  });

  it('shows the build: the version given and the Node.js version, as labels of a 1', async () => {
    expect(await sample(new Metrics({ version: '1.2.3' }), `loyalty_build_info{version="1.2.3",node_version="${process.versions.node}"}`)).toBe(1);
    expect((await new Metrics().render()).includes('loyalty_build_info{')).toBe(false);
  });
});
