/**
 * The Node.js runtimes the bench measures on: the current LTS line by
 * default (`--node=26`), others when asked (`--node=26,24`). The running Node
 * serves its own line; another line's binary comes from the npm registry, as `.ci/run`
 * gets it: the `node` package, whose install step fetches the binary of this
 * platform (hence `--ignore-scripts=false`: the repository's `.npmrc`
 * ignores install scripts), kept in npm's npx cache after the first time.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface Runtime {
  /** The major version, e.g. 26. */
  line: number;
  /** `v26.10.0`. */
  version: string;
  /** The binary that runs the server and the bare app. */
  execPath: string;
}

export const defaultLines: readonly number[] = [26];

export function parseLines(raw: string): number[] {
  const lines = raw.split(',').map((part) => Number(part.trim()));
  if (lines.length === 0 || lines.some((line) => !Number.isInteger(line) || line < 22)) {
    throw new Error(`--node takes Node.js major versions, 22 or later, separated by commas (got "${raw}")`);
  }
  return lines;
}

export function resolveRuntime(line: number): Runtime {
  if (Number(process.versions.node.split('.')[0]) === line) return { line, version: process.version, execPath: process.execPath };
  // Outside the repository, so that its .npmrc and workspaces play no part.
  const printed = execFileSync(
    'npx',
    ['-y', '--ignore-scripts=false', '-p', `node@${line}`, '--', 'node', '-p', 'process.version + " " + process.execPath'],
    { cwd: os.tmpdir(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  ).trim();
  const [version, ...rest] = printed.split(' ');
  const execPath = rest.join(' ');
  if (!version?.startsWith(`v${line}.`) || !execPath) throw new Error(`node@${line} from the registry printed "${printed}"`);
  return { line, version, execPath };
}
