/**
 * Preloaded (`node --require bench/dist/bench/profile-hook.js ...`) into a process
 * the bench profiles: the first SIGUSR2 starts V8's CPU profiler, the second
 * stops it and writes `$BENCH_PROFILE_FILE` (the bench waits for the file).
 * Unlike `--cpu-prof`, the profile covers only the measured
 * load, not start-up, seeding and warm-up.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.BENCH_PROFILE_FILE;
if (file) {
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 100 }, () => session.post('Profiler.start')));
      return;
    }
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
