import type { Collection, Document, Filter, FindCursor, WithId } from 'mongodb';
import type { Progress } from './migration';

/** Documents a step works on at once. */
const concurrency = 8;

/**
 * A step's work on every document of `collection` matching `filter`, at
 * most `concurrency` at a time, telling `progress` after each under `step`.
 * Rejects with the first failure (the rest are not started).
 */
export async function eachMatching<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  step: string,
  progress: Progress,
  work: (doc: WithId<T>) => Promise<void>,
): Promise<void> {
  const total = await collection.countDocuments(filter);
  let done = 0;
  progress(step, done, total);
  await inParallel(collection.find(filter), concurrency, async (doc) => {
    await work(doc);
    progress(step, ++done, total);
  });
}

/** Runs `work` on each document of `cursor`, at most `limit` at a time; rejects with the first failure. */
async function inParallel<T>(cursor: FindCursor<T>, limit: number, work: (doc: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  // The first failure, boxed: a failure may be any value, `undefined` included.
  const first: { failure?: { error: unknown } } = {};
  try {
    for await (const doc of cursor) {
      if (first.failure) break;
      const task = work(doc).catch((error: unknown) => {
        first.failure ??= { error };
      });
      running.add(task);
      void task.finally(() => running.delete(task));
      if (running.size >= limit) await Promise.race(running);
    }
    await Promise.all(running);
  } finally {
    await cursor.close();
  }
  if (first.failure) throw first.failure.error;
}
