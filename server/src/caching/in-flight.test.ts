import { InFlight } from './in-flight';

/** A promise the test settles. */
function deferred(): { promise: Promise<string>; resolve: (value: string) => void; reject: (error: Error) => void } {
  let resolve: (value: string) => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets the handlers of settled promises run. */
const handlersRun = () => new Promise((resolve) => setImmediate(resolve));

describe('InFlight', () => {
  it.each<[string, (work: ReturnType<typeof deferred>) => void]>([
    ['fulfilled', (work) => work.resolve('answer')],
    ['rejected', (work) => work.reject(new Error('failed'))],
  ])('keeps an entry while its promise is under way and forgets it once %s', async (_how, settle) => {
    const inFlight = new InFlight<{ at: number; promise: Promise<string> }>();
    const work = deferred();
    const entry = { at: 1, promise: work.promise };
    const tracked = inFlight.track('k', entry);
    expect(tracked).toBe(work.promise);
    expect(inFlight.get('k')).toBe(entry);
    expect(inFlight.promises()).toEqual([work.promise]);
    settle(work);
    await tracked.catch(() => undefined);
    await handlersRun();
    expect(inFlight.get('k')).toBeUndefined();
    expect(inFlight.size).toBe(0);
  });

  it('an entry that settles after another took its key leaves the newer one in place', async () => {
    const inFlight = new InFlight<{ at: number; promise: Promise<string> }>();
    const older = deferred();
    const newer = deferred();
    void inFlight.track('k', { at: 1, promise: older.promise });
    const current = { at: 2, promise: newer.promise };
    void inFlight.track('k', current);
    older.resolve('old');
    await handlersRun();
    expect(inFlight.get('k')).toBe(current);
    expect(inFlight.size).toBe(1);
    newer.resolve('new');
    await handlersRun();
    expect(inFlight.size).toBe(0);
  });
});
