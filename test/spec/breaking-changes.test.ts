// `npm run spec:breaking` on modified copies of the spec: each fixture in
// breaking-changes/ edits a copy, the copy is checked against the unmodified
// spec as the last release, and the fixture says whether the check passes and
// what its output names. The copies live in a temp dir; the repository's spec
// and released specs are only read.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, parseDocument } from 'yaml';

type Edit =
  | { delete: string[] }
  | { set: string[]; value: unknown }
  | { append: string[]; value: unknown };
type Fixture = { expect: 'passes' | 'fails'; mentions: string[]; edits: Edit[] };

const root = path.join(__dirname, '../..');
const fixturesDir = path.join(__dirname, 'breaking-changes');
const specText = readFileSync(path.join(root, 'openapi/openapi.yaml'), 'utf8');
// Both copies say 1.0.0 whatever the project's current version, so that the
// fixtures (a major bump to 2.0.0, the released file's name) never go stale.
const releasedVersion = '1.0.0';

function editedSpec(edits: Edit[]): string {
  const doc = parseDocument(specText);
  doc.setIn(['info', 'version'], releasedVersion);
  for (const edit of edits) {
    if ('delete' in edit) {
      if (!doc.hasIn(edit.delete)) throw new Error(`fixture deletes ${edit.delete.join('.')}, which the spec does not have`);
      doc.deleteIn(edit.delete);
    } else if ('set' in edit) {
      doc.setIn(edit.set, doc.createNode(edit.value));
    } else {
      if (!doc.hasIn(edit.append)) throw new Error(`fixture appends to ${edit.append.join('.')}, which the spec does not have`);
      doc.addIn(edit.append, doc.createNode(edit.value));
    }
  }
  return String(doc);
}

async function runCheck(dir: string): Promise<{ passed: boolean; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [path.join(root, 'scripts/spec-breaking.mjs'), '--spec', path.join(dir, 'openapi.yaml'), '--released', path.join(dir, 'released')],
      { cwd: root },
    );
    return { passed: true, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (failed.code !== 1) throw error; // a crash, not a verdict
    return { passed: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const cases = readdirSync(fixturesDir)
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => [name.replace(/\.yaml$/, ''), parse(readFileSync(path.join(fixturesDir, name), 'utf8')) as Fixture] as const);

// Made here, not in beforeAll: jest may start concurrent tests before its hooks.
const scratch = mkdtempSync(path.join(tmpdir(), 'spec-breaking-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run spec:breaking', () => {
  it('has the cases the issue asks for', () => {
    expect(cases.map(([name]) => name).sort()).toEqual(
      [
        'adds-optional-request-field',
        'adds-optional-response-field',
        'adds-response-enum-value',
        'major-bump-allows-breaking-change',
        'removes-response-field',
        'requires-optional-request-field',
        'unreleased-major-mark-allows-breaking-change',
        'unreleased-mark-keeps-major',
        'unreleased-mark-of-a-release-made',
      ].sort(),
    );
  });

  // Concurrent: each case is a Node process running Redocly's diff, about a
  // second alone; on two busy cores the nine together can take several, hence
  // the timeout (they share one clock when they start together).
  it.concurrent.each(cases)('%s', async (name, fixture) => {
    const dir = path.join(scratch, name);
    mkdirSync(path.join(dir, 'released'), { recursive: true });
    writeFileSync(path.join(dir, 'released', `${releasedVersion}.yaml`), editedSpec([]));
    writeFileSync(path.join(dir, 'openapi.yaml'), editedSpec(fixture.edits));

    const { passed, output } = await runCheck(dir);

    expect({ passed, output }).toEqual({ passed: fixture.expect === 'passes', output });
    for (const mention of fixture.mentions) expect(output).toContain(mention);
  }, 60_000);
});
