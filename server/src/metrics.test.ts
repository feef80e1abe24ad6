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

  it.each([
    ['a request\'s command: in all commands only', [{ command: 'find', collection: 'members' }], { all: 1, sweep: undefined }],
    ['the sweep\'s: in both', [{ command: 'aggregate', collection: 'wallets', sweep: true }], { all: 1, sweep: 1 }],
    [
      'both kinds of one command and collection: each counted where it belongs',
      [
        { command: 'update', collection: 'wallets' },
        { command: 'update', collection: 'wallets', sweep: true },
        { command: 'update', collection: 'wallets', sweep: true },
      ],
      { all: 3, sweep: 2 },
    ],
  ])('counts the outbox sweep\'s MongoDB commands apart, as a share of all of them: %s', async (_case, commands, expected) => {
    const metrics = new Metrics();
    for (const labels of commands) metrics.mongoCommand(labels);
    const { command, collection } = commands[0]!;
    const series = `{command="${command}",collection="${collection}"}`;
    expect(await sample(metrics, `loyalty_mongodb_commands_total${series}`)).toBe(expected.all);
    expect(await sample(metrics, `loyalty_outbox_sweep_commands_total${series}`)).toBe(expected.sweep);
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
