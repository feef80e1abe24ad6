import { walletLabelOf } from './composition';
import { memberIdHash } from './domain/secrets';

describe('walletLabelOf: how a log line names a wallet', () => {
  const key = new Uint8Array(32).fill(7);
  it.each([
    ['hashed', 'member:m-alice', `member:${memberIdHash(key, 'm-alice')}`],
    ['off', 'member:m-alice', 'member:(member id not logged)'],
    ['plain', 'member:m-alice', 'member:m-alice'],
    ['hashed', 'household:hh-1', 'household:hh-1'],
    ['off', 'household:hh-1', 'household:hh-1'],
  ] as const)('LOG_MEMBER_IDS=%s: %s as %s', (mode, walletId, shown) => {
    expect(walletLabelOf(mode, key)(walletId)).toBe(shown);
  });
});
