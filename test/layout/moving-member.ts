/**
 * How long a member being moved by an operator's load is answered `503`,
 * measured as a partner meets it: a load moves one member (m-b) into
 * another household, along with OTHERS members in one-member wallets that
 * do not move (default 3,000; `OTHERS=10000`), while m-b's offline
 * creations arrive every 50 ms through the API. They ask for more points
 * than the household holds, so that none is ever made (a reservation made
 * would rightly keep the member from moving): each is `400 Insufficient
 * points balance`, or `503` while the member is fenced. The span of the
 * 503s must be at most MAX_SPAN_MS (default 3,000): the member's own move,
 * not the load's length. Exits 1 when it is longer, or when the member was
 * not moved. On MONGODB_URI (a database of its own, dropped after), or the
 * embedded store without it.
 *
 *   MONGODB_URI=... npm run test:load-moves
 *   MONGODB_URI=... OTHERS=10000 npm run test:load-moves
 */
import { randomBytes } from 'node:crypto';
import { loadFixture, type LoadReport } from '../../server/src/features/load/load-fixture';
import type { Fixture } from '../../server/src/features/load/fixture-schema';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { dropTestDatabase } from '../../server/src/store/test-support/mongo-test-server';
import type { Store } from '../../server/src/store/port';
import { startTestApp } from '../../server/src/test-support/app-harness';
import { fixtureClient, fixtureMember } from '../../server/src/test-support/fixture-entries';

const uri = process.env.MONGODB_URI?.trim() ?? '';
const others = Number(process.env.OTHERS ?? 3000);
const maxSpanMs = Number(process.env.MAX_SPAN_MS ?? 3000);
const everyMs = 50;
const key = 'secret_load_moves_0001';

/** The members who stay, each in a wallet of its own, with `points` each. */
const stayers = (points: number) => Array.from({ length: others }, (_, i) => fixtureMember(`m-stay-${i}`, points));

const base: Fixture = {
  clients: [fixtureClient('partner-app', key, { defaultBusinessUnit: 'LCL' })],
  members: [
    fixtureMember('m-a', 1000, { householdId: 'hh-1', privileges: ['REDEEM'] }),
    fixtureMember('m-b', 500, { householdId: 'hh-1', privileges: ['REDEEM'] }),
    fixtureMember('m-c', 300, { householdId: 'hh-2', privileges: ['REDEEM'] }),
    ...stayers(100),
  ],
};
/** m-b joins hh-2, and every other member's balance is loaded again (changed, so that each wallet is written). */
const move: Fixture = { members: [fixtureMember('m-b', 500, { householdId: 'hh-2', privileges: ['REDEEM'] }), ...stayers(101)] };

async function main(): Promise<void> {
  const dbName = `load_moves_${process.pid}_${randomBytes(3).toString('hex')}`;
  const connect = async (): Promise<Store> => (uri ? MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 }) : shared);
  const shared = new MemoryStore();
  console.log(`loading ${others.toLocaleString('en-US')} members and their wallets on ${uri ? 'MongoDB' : 'the embedded store'}...`);
  const app = await startTestApp({ store: await connect(), fixture: base, validateResponses: false });
  // The operator's load, on a connection of its own, as `loyalty-admin load` has.
  const loadStore = uri ? await connect() : shared;
  try {
    const session = await app.api.startSession(key, 'm-b');
    const answers: Array<{ at: number; status: number }> = [];
    let stop = false;
    const probing = (async () => {
      for (let i = 0; !stop; i++) {
        const sent = performance.now();
        const res = await app.api.updateReservation(key, session, 'm-b', `rt-probe-${i}`, { reservationAmount: 1_000_000, offline: true });
        answers.push({ at: sent, status: res.status });
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - (performance.now() - sent))));
      }
    })();

    const started = performance.now();
    let report: LoadReport;
    try {
      report = await loadFixture(loadStore, move, new Date());
    } finally {
      stop = true;
      await probing;
    }
    const loadMs = performance.now() - started;
    const refused = answers.filter((a) => a.status === 503);
    const spanMs = refused.length === 0 ? 0 : refused.at(-1)!.at - refused[0]!.at + everyMs;
    const unexpected = answers.filter((a) => a.status !== 503 && a.status !== 400);
    const moved = (await app.store.findMember('m-b'))?.walletId === 'household:hh-2';
    const result = { others, loadMs: Math.round(loadMs), probes: answers.length, answered503: refused.length, spanOf503Ms: Math.round(spanMs), ...report, moved, unexpected: unexpected.length };
    console.log(JSON.stringify(result));
    if (!moved || unexpected.length > 0 || spanMs > maxSpanMs) {
      console.error(`FAIL: the member's 503s spanned ${Math.round(spanMs)} ms (at most ${maxSpanMs}); moved: ${moved}; other answers: ${unexpected.length}`);
      process.exitCode = 1;
    } else console.log(`PASS: the member's 503s spanned ${Math.round(spanMs)} ms of a ${(loadMs / 1000).toFixed(1)} s load (at most ${maxSpanMs} ms)`);
  } finally {
    await app.close();
    if (uri) {
      await loadStore.close();
      await dropTestDatabase(uri, dbName);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
