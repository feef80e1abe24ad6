/**
 * Preloaded (`node --require bench/dist/bench/gc-hook.js ...`) into the server the
 * bench measures, so that the memory check reads RSS in the same state every
 * time: on SIGUSR2 it runs full garbage collections through V8's inspector
 * (no `--expose-gc`, no other change to the process), then writes how many it
 * has done to `$BENCH_GC_FILE` (the bench waits for the count to change).
 * Without it, RSS at a given moment depends on where the heap is in its
 * collection cycle: readings taken at rest moved by ±50 MB between runs.
 * Not loaded together with profile-hook.js, which uses the same signal.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.BENCH_GC_FILE;
if (file) {
  const session = new Session();
  session.connect();
  let done = 0;
  // The next step runs from setImmediate: a post from inside a post's callback never returns.
  const collect = (then: () => void): void => session.post('HeapProfiler.collectGarbage', () => setImmediate(then));
  process.on('SIGUSR2', () => {
    // Twice: the first can leave objects that only the second frees (weak references, finalisers).
    collect(() => collect(() => writeFileSync(file, String(++done))));
  });
}
