import type { MemberRecord } from '../../domain/model';
import { defaultWalletLimits } from '../../domain/limits';
import { loadFixture } from '../load/load-fixture';
import { MemoryStore } from '../../store/memory/memory-store';
import { wrapStore } from '../../store/store-wrapper';
import { fixtureClient, fixtureMember, fixtureReservation } from '../../test-support/fixture-entries';
import { sessionRecord } from '../../store/test-support/records';
import { createReservationService } from './service';

/*
 * How Operation B finds the path member and its wallet when the session's
 * lookup brought no member (a process keeps a member 2 s at most, a session
 * until it expires): with the wallet the session names, in the same read;
 * following a member that moved to another wallet; and for a session that
 * names no wallet (started before sessions recorded it), by the member first.
 */

const now = new Date('2030-01-01T00:00:00.000Z');

async function setUp() {
  const memory = new MemoryStore({ clock: () => now, sessionSweepIntervalMs: 0 });
  await loadFixture(
    memory,
    {
      clients: [fixtureClient('app', 'pk_app_000000000001')],
      members: [fixtureMember('m-a', 1000), fixtureMember('m-b', 500)],
      reservations: [fixtureReservation('rt-1', 'm-a', { 'm-a': 400 }, { clientId: 'app' })],
    },
    now,
  );
  const calls: string[] = [];
  const store = wrapStore(memory, (method, args, call) => {
    const options = method === 'loadWalletSlice' ? (args[2] as { withMember?: string } | undefined) : undefined;
    calls.push(options?.withMember ? `${method}+member` : method);
    return call();
  });
  const service = createReservationService({ store, clock: () => now, walletLimits: defaultWalletLimits });
  const client = (await memory.findClient('app'))!;
  // By card number, as the reservation was made: Operation B refuses a change by another identifier type.
  const session = (walletId: string | undefined) =>
    sessionRecord('h', {
      clientId: 'app',
      keyId: 'key_x',
      correlationId: 'm-a',
      identifierType: 'CARD_NUMBER',
      expiresAt: new Date(now.getTime() + 3_600_000),
      ...(walletId !== undefined && { walletId }),
    });
  const lower = (walletId: string | undefined, member?: MemberRecord | null) =>
    service.updateReservation(
      { client, session: session(walletId), correlationId: 'm-a', reservationToken: 'rt-1', ...(member !== undefined && { member }) },
      { reservationAmount: 300 },
    );
  return { memory, calls, lower };
}

describe('Operation B without the member read with the session', () => {
  it('reads the member with the wallet the session names: one read, one save', async () => {
    const { calls, lower } = await setUp();
    expect((await lower('member:m-a')).availablePointBalance).toBe(700);
    expect(calls.filter((c) => c !== 'findRedemption' && c !== 'findCatalogueItems')).toEqual(['loadWalletSlice+member', 'saveReservationChange']);
  });

  it('follows a member that moved to another wallet since the session started', async () => {
    const { memory, calls, lower } = await setUp();
    // m-a's wallet is now m-b's household wallet, say; the session still names m-a's own.
    const moved = { ...(await memory.findMember('m-a'))!, walletId: 'member:m-b' };
    await memory.upsertMembers([moved]);
    await expect(lower('member:m-a')).rejects.toThrow('Reservation Token is invalid');
    expect(calls).toEqual(['loadWalletSlice+member', 'loadWalletSlice']);
  });

  it('reads the member first for a session that names no wallet', async () => {
    const { calls, lower } = await setUp();
    expect((await lower(undefined)).availablePointBalance).toBe(700);
    expect(calls.slice(0, 2)).toEqual(['findMember', 'loadWalletSlice']);
  });

  it.each<[string, (memory: MemoryStore) => Promise<void>]>([
    ['no longer exists', async () => undefined],
    ['is not eligible', async (memory) => memory.upsertMembers([{ ...(await memory.findMember('m-a'))!, eligibleForRedemption: false }])],
  ])('refuses a member that %s, read with the wallet', async (name, change) => {
    const { memory, lower } = await setUp();
    await change(memory);
    const member = name === 'no longer exists' ? null : undefined;
    await expect(lower('member:m-a', member)).rejects.toThrow('Account is not eligible for redemption');
  });
});
