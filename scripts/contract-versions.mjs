// The contract's versions, shared by spec:breaking and release: the spec's
// info.version, the released specs kept in openapi/released/<version>.yaml,
// and the difference between two specs as Redocly CLI's `diff` rates it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { parse } from 'yaml';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const specPath = path.join(root, 'openapi/openapi.yaml');
export const releasedDir = path.join(root, 'openapi/released');
const diffConfigPath = path.join(root, 'openapi/redocly.diff.yaml');
const redoclyCli = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');

/**
 * `version` if it is a plain semantic version, MAJOR.MINOR.PATCH. Pre-release
 * and build suffixes are refused: the SDK must match the spec's major and
 * minor, and a changelog entry names one release.
 */
export function plainVersion(version, where) {
  const valid = typeof version === 'string' ? semver.valid(version) : null;
  if (valid === null || valid !== version || semver.prerelease(version) !== null) {
    throw new Error(`${where}: ${JSON.stringify(version)} is not a version MAJOR.MINOR.PATCH (semantic versioning)`);
  }
  return version;
}

/**
 * The mark of a build between releases: the next release's version with this
 * pre-release tag, e.g. `1.1.0-unreleased`, in info.version, the SDK's and
 * the server's versions. So what the server serves (`/openapi.json`, its log
 * lines, spans and metrics) and what a tarball packed from the repository
 * says is never a release it is not (CONTRIBUTING.md, "Versioning and releases").
 */
export const unreleasedTag = 'unreleased';

/**
 * `version` as `{ version, release, unreleased }`: a release MAJOR.MINOR.PATCH,
 * or the next release marked `<release>-unreleased`. Anything else is refused.
 */
export function contractVersion(version, where) {
  const suffix = `-${unreleasedTag}`;
  const unreleased = typeof version === 'string' && version.endsWith(suffix);
  const release = unreleased ? version.slice(0, -suffix.length) : version;
  try {
    plainVersion(release, where);
  } catch {
    throw new Error(`${where}: ${JSON.stringify(version)} is neither a release MAJOR.MINOR.PATCH nor the next one marked MAJOR.MINOR.PATCH${suffix}`);
  }
  return { version, release, unreleased };
}

/** info.version of the spec at `file`: a release, or the next one marked unreleased. */
export function specVersion(file) {
  return contractVersion(parse(readFileSync(file, 'utf8'))?.info?.version, `info.version of ${path.relative(root, file)}`);
}

/** The released specs, oldest first: every `<version>.yaml` in `dir`. */
export function releasedSpecs(dir = releasedDir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => ({ version: plainVersion(name.slice(0, -'.yaml'.length), `openapi/released/${name}`), file: path.join(dir, name) }))
    .sort((a, b) => semver.compare(a.version, b.version));
}

/**
 * Redocly CLI's diff of `baseFile` -> `revisionFile` with openapi/redocly.diff.yaml,
 * as its JSON report: `summary` ({ major, minor, patch }), `bump` (the part of
 * the version the changes require) and `changes`, each with the rules'
 * `verdicts` and where it is. It judges nothing here (`--fail-on none`).
 */
export function diffSpecs(baseFile, revisionFile) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'spec-diff-'));
  const reportFile = path.join(scratch, 'report.json');
  try {
    const run = spawnSync(
      process.execPath,
      [redoclyCli, 'diff', baseFile, revisionFile, '--config', diffConfigPath, '--format', 'json', '--output', reportFile, '--fail-on', 'none'],
      {
        cwd: root,
        encoding: 'utf8',
        // No telemetry, no "new version" look-up, no announcement: offline and quiet.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
      },
    );
    if (run.status !== 0 || !existsSync(reportFile)) {
      throw new Error(`redocly diff failed (exit ${run.status ?? run.signal}):\n${run.stdout ?? ''}${run.stderr ?? run.error ?? ''}`);
    }
    return JSON.parse(readFileSync(reportFile, 'utf8'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * Where a change is, for people: `PUT /client/.../{reservation_token}: responses/200/...`
 * from the report's JSON pointer `#/paths/~1client~1.../put/responses/200/...`.
 */
export function describePointer(pointer) {
  const segments = pointer.replace(/^#\//, '').split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (segments[0] !== 'paths' || segments.length < 2) return segments.join('/') || '(the whole document)';
  const [, apiPath, maybeMethod, ...rest] = segments;
  const operation = httpMethods.has(maybeMethod ?? '') ? `${maybeMethod.toUpperCase()} ${apiPath}` : apiPath;
  const inside = httpMethods.has(maybeMethod ?? '') ? rest : [maybeMethod, ...rest].filter(Boolean);
  return inside.length > 0 ? `${operation}: ${inside.join('/')}` : operation;
}

/** `file:line (pointer)` of a location in the report (whose files are relative to `root`, the diff's cwd). */
export function describeLocation(location) {
  if (!location) return '';
  const file = path.resolve(root, location.file);
  const shown = file.startsWith(root + path.sep) ? path.relative(root, file) : file;
  return `${shown}:${location.line} (${location.pointer})`;
}
