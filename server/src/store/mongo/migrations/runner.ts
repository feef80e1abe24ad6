import type { Db } from 'mongodb';
import { collectionNames } from '../collections';
import { currentLayout, layoutDocumentId, readLayout, recordLayout, type LayoutDoc } from '../layout';
import { toLayout2 } from './002-reservation-documents';
import { toLayout3 } from './003-api-keys';
import { toLayout4 } from './004-wallet-outbox';
import { toLayout5 } from './005-key-kinds';
import type { Migration, Progress } from './migration';


export const migrations: readonly Migration[] = [toLayout2, toLayout3, toLayout4, toLayout5];

export interface MigrationReport {
  from: number | null;
  to: number;
  /** The steps run, in order (none when the database was at the current layout already). */
  steps: Array<{ to: number; name: string; seconds: number }>;
}

/**
 * Brings the database to `currentLayout` in place, step by step. Each step
 * first marks the layout document (`migrating`), so that no server starts
 * half-way (layout.ts); the mark goes when the step has recorded its
 * version. An empty database is simply given the current layout.
 */
export async function migrate(db: Db, progress: Progress = () => undefined, now: () => Date = () => new Date()): Promise<MigrationReport> {
  const state = await readLayout(db);
  const from = state.version;
  const report: MigrationReport = { from, to: currentLayout, steps: [] };
  if (from !== null && from > currentLayout) {
    throw new Error(`The database holds data layout ${from}, newer than this release knows (${currentLayout}): use a release that knows layout ${from}.`);
  }
  if (from === null) {
    await recordLayout(db, currentLayout, now());
    return report;
  }
  // A step that stopped half-way is run again from its start (it is idempotent).
  for (const step of migrations.filter((m) => m.to > from)) {
    const started = performance.now();
    await markMigrating(db, step.to, now());
    await step.run(db, progress, now());
    await recordLayout(db, step.to, now());
    report.steps.push({ to: step.to, name: step.name, seconds: (performance.now() - started) / 1000 });
  }
  return report;
}

async function markMigrating(db: Db, to: number, startedAt: Date): Promise<void> {
  const layout = db.collection<LayoutDoc>(collectionNames.meta);
  const current = await layout.findOne({ _id: layoutDocumentId });
  // Kept from an interrupted run, so that its start time stays visible.
  if (current?.migrating?.to === to) return;
  await layout.updateOne(
    { _id: layoutDocumentId },
    { $set: { migrating: { to, startedAt } }, $setOnInsert: { version: to - 1, since: startedAt } },
    { upsert: true },
  );
}
