import type { Db } from 'mongodb';

/** Told how far a step has come: `done` of `total` documents. */
export type Progress = (step: string, done: number, total: number) => void;

/**
 * One step from layout `to - 1` to `to`. Every step is idempotent and
 * resumable: run again after a crash, it finishes what is left and leaves
 * what is done as it is.
 */
export interface Migration {
  to: number;
  name: string;
  run(db: Db, progress: Progress, now: Date): Promise<void>;
}
