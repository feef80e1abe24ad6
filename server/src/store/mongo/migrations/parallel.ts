import type { FindCursor } from 'mongodb';

/** Runs `work` on each document of `cursor`, at most `limit` at a time; rejects with the first failure. */
export async function inParallel<T>(cursor: FindCursor<T>, limit: number, work: (doc: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: unknown = null;
  try {
    for await (const doc of cursor) {
      if (failure) break;
      const task = work(doc).catch((error: unknown) => {
        failure ??= error;
      });
      running.add(task);
      void task.finally(() => running.delete(task));
      if (running.size >= limit) await Promise.race(running);
    }
    await Promise.all(running);
  } finally {
    await cursor.close();
  }
  if (failure) throw failure;
}
