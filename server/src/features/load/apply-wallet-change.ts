import { withMove } from '../../domain/member-move-rules';
import type { Wallet } from '../../domain/model';
import { deepCopy } from '../../store/copy';
import { compareKeys } from '../../store/key-order';
import { reservationKey } from './fixture-records';
import type { WalletChange } from './plan-load';

/**
 * What the load writes into one wallet, inside its compare-and-set loop:
 * the balances the fixture gives, the members arriving from another
 * wallet, and the reservations, each replacing the one under its key.
 */
export function applyWalletChange(wallet: Wallet, change: WalletChange): boolean {
  for (const [correlationId, pointBalance] of change.balances) {
    const balance = wallet.balances.find((b) => b.correlationId === correlationId);
    if (balance) balance.pointBalance = pointBalance;
    else wallet.balances.push({ correlationId, pointBalance });
  }
  for (const [correlationId, from] of change.arriving) {
    wallet.moves = withMove(wallet.moves, correlationId, { correlationId, state: 'arriving', walletId: from });
  }
  // One pass over the wallet and one over the fixture's records: keyed, not searched.
  const indexByKey = new Map(wallet.reservations.map((r, index) => [reservationKey(r), index]));
  for (const reservation of change.reservations) {
    // A fresh copy per attempt: the CAS loop may run this more than once.
    const record = deepCopy(reservation);
    const key = reservationKey(record);
    const index = indexByKey.get(key);
    if (index !== undefined) {
      wallet.reservations[index] = record;
    } else {
      indexByKey.set(key, wallet.reservations.length);
      wallet.reservations.push(record);
    }
  }
  wallet.balances.sort((a, b) => compareKeys(a.correlationId, b.correlationId));
  return true;
}
