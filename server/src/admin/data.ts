import type { Db } from 'mongodb';
import { systemClock } from '../domain/clock';
import type { AppConfig, MongoConfig } from '../config';
import { loadFixture } from '../features/load/load-fixture';
import { readFixtureFile } from '../features/load/read-fixture';
import { FixtureError } from '../features/load/fixture-error';
import type { Fixture } from '../features/load/fixture-schema';
import { collectionNames } from '../store/mongo/collections';
import { applyAuditRetention, auditRetentionProblem } from '../store/mongo/audit-retention';
import { ensureIndexes, indexSpecs, missingIndexes } from '../store/mongo/indexes';
import { currentLayout, readLayout } from '../store/mongo/layout';
import { migrate } from '../store/mongo/migrations/runner';
import { withDatabase, withStore } from './database';
import { AdminError, exitCodes } from './exit-codes';
import type { Output } from './output';

/**
 * `load FILE`: the fixture loader as a job. The file is read and checked
 * whole before anything is written (an invalid one writes nothing); every
 * balance and reservation goes through the wallets' compare-and-set, so it
 * is safe next to a running fleet.
 */
export async function runLoad(config: AppConfig & { mongo: MongoConfig }, file: string, out: Output): Promise<void> {
  let fixture: Fixture;
  try {
    fixture = await readFixtureFile(file);
  } catch (error) {
    if (error instanceof FixtureError) throw new AdminError(error.message, exitCodes.failed);
    throw error;
  }
  const started = performance.now();
  const report = await withStore(config.mongo, async (store) => {
    try {
      return await loadFixture(store, fixture, systemClock(), config.walletLimits, { onProgress: (done, total) => out.progress('wallets', done, total) });
    } catch (error) {
      if (error instanceof FixtureError) throw new AdminError(error.message, exitCodes.failed);
      throw error;
    }
  });
  out.progressDone();
  const counts = Object.fromEntries(Object.entries(fixture).map(([collection, records]) => [collection, Array.isArray(records) ? records.length : 0]));
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  out.result({ file, loaded: counts, seconds, ...report }, [
    `Loaded ${file} in ${seconds} s: ${Object.entries(counts).map(([name, n]) => `${n} ${name}`).join(', ')}`,
    ...(report.membersMoved > 0 ? [`Moved ${report.membersMoved} member(s) to another wallet; the longest fence held ${report.longestFenceMs} ms`] : []),
  ]);
}

/**
 * `indexes`: creates every index of the current layout (idempotent) and
 * makes the audit trail's retention what AUDIT_RETENTION_DAYS says; with
 * `verify`, creates nothing and fails on a missing index or another retention.
 */
export async function runIndexes(mongo: MongoConfig, verify: boolean, out: Output): Promise<void> {
  const { missing, retention, retentionProblem } = await withDatabase(mongo, async (db) => {
    const change = verify ? null : await applyAuditRetention(db, mongo.auditRetentionDays);
    if (!verify) await ensureIndexes(db);
    return { missing: await missingIndexes(db), retention: change, retentionProblem: await auditRetentionProblem(db, mongo.auditRetentionDays) };
  });
  const total = indexSpecs.reduce((sum, spec) => sum + spec.indexes.length, 0);
  const kept = mongo.auditRetentionDays === null ? 'for ever' : `${mongo.auditRetentionDays} days`;
  out.result({ created: !verify, expected: total, missing, auditRetentionDays: mongo.auditRetentionDays, auditRetention: retention ?? (retentionProblem ? 'differs' : 'unchanged') }, [
    verify ? `Indexes: ${total - missing.length} of ${total} present` : `Indexes: ${total - missing.length} of ${total} present (created what was missing)`,
    ...missing.map((index) => `  missing: ${index}`),
    retentionProblem ? `Audit retention: ${retentionProblem}` : `Audit retention: ${kept}${retention && retention !== 'unchanged' ? ` (${retention})` : ''}`,
  ]);
  const problems = missing.length + (retentionProblem ? 1 : 0);
  if (problems > 0) throw new AdminError(`${missing.length} index(es) missing${retentionProblem ? ', and the audit retention differs' : ''}`, exitCodes.failed, true);
}

/** `check`: reachable, the layout version, the indexes, counts per collection; fails when anything is wrong. */
export async function runCheck(mongo: MongoConfig, out: Output): Promise<void> {
  const report = await withDatabase(mongo, async (db, ping) => {
    await ping();
    const layout = await readLayout(db);
    return { layout, missing: await missingIndexes(db), counts: await countsOf(db), retention: await auditRetentionProblem(db, mongo.auditRetentionDays) };
  });
  const problems: string[] = [];
  if (report.layout.migrating) problems.push(`a migration to layout ${report.layout.migrating.to} is under way or stopped half-way: run loyalty-admin migrate`);
  else if (report.layout.version !== null && report.layout.version !== currentLayout) {
    problems.push(`data layout ${report.layout.version}, this release needs ${currentLayout}: run loyalty-admin migrate`);
  }
  for (const index of report.missing) problems.push(`missing index ${index}: run loyalty-admin indexes`);
  if (report.retention) problems.push(report.retention);
  const layout = { version: report.layout.version, expected: currentLayout, recorded: report.layout.recorded, migrating: report.layout.migrating };
  out.result({ ok: problems.length === 0, reachable: true, layout, missingIndexes: report.missing, counts: report.counts, problems }, [
    `Reachable: yes`,
    `Data layout: ${report.layout.version ?? 'none (empty database)'}${report.layout.recorded ? '' : ' (not recorded)'}, this release: ${currentLayout}`,
    `Indexes: ${report.missing.length === 0 ? 'all present' : `${report.missing.length} missing`}`,
    ...Object.entries(report.counts).map(([name, count]) => `  ${name.padEnd(20)} ${count.toLocaleString('en-US')}`),
    ...(problems.length === 0 ? ['OK'] : problems.map((problem) => `PROBLEM: ${problem}`)),
  ]);
  if (problems.length > 0) throw new AdminError(`check found ${problems.length} problem(s)`, exitCodes.failed, true);
}

async function countsOf(db: Db): Promise<Record<string, number>> {
  const names = Object.values(collectionNames).filter((name) => name !== collectionNames.meta);
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = await db.collection(name).estimatedDocumentCount();
  return counts;
}

/** `migrate`: brings the database to the current layout (migrations/runner.ts), with that layout's indexes. */
export async function runMigrate(mongo: MongoConfig, out: Output): Promise<void> {
  const report = await withDatabase(mongo, async (db) => {
    // Before too: the steps read reservations by wallet, which that index answers.
    await ensureIndexes(db);
    const result = await migrate(db, (step, done, total) => out.progress(step, done, total));
    await ensureIndexes(db);
    return result;
  });
  out.progressDone();
  const lines =
    report.steps.length === 0
      ? [report.from === null ? `Empty database: given data layout ${report.to}` : `Already at data layout ${report.to}: nothing to do`]
      : [...report.steps.map((s) => `Layout ${s.to} (${s.name}): ${s.seconds.toFixed(1)} s`), `Now at data layout ${report.to}`];
  out.result(report, lines);
}
