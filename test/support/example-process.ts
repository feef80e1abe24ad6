import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { childProcessEnv } from './process-env';

const repoRoot = path.resolve(__dirname, '../..');

export interface RunningExample {
  /** The page, as `npm run example:web` printed it. */
  pageUrl: string;
  /** The API it started beside the page. */
  apiUrl: string;
  /** Every line it printed on stdout (its own and the API's JSON log). */
  lines: string[];
  /** The API's JSON log lines, parsed. */
  apiLog(): Array<Record<string, unknown>>;
  /**
   * Sends `signal` to the `npm run` process (as a process manager does), or
   * with `group` to its whole process group (as a terminal's Ctrl+C does);
   * resolves with how `npm run` ended.
   */
  stop(signal: NodeJS.Signals, options: { group: boolean; timeoutMs: number }): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const printedUrls = /^Web example: (\S+)\s+\(API (\S+),/;

/**
 * `npm run example:web` as a developer runs it, on free ports (PORT=0,
 * WEB_PORT=0); resolves once it has printed the page's URL. The first run
 * builds the server (`npm start`), hence the long wait.
 */
export function startExample(timeoutMs = 180_000): Promise<RunningExample> {
  const child: ChildProcess = spawn('npm', ['run', '-s', 'example:web'], {
    cwd: repoRoot,
    env: childProcessEnv({ PORT: '0', WEB_PORT: '0', LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a terminal gives a command.
    detached: true,
  });
  const lines: string[] = [];
  const errors: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => errors.push(chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`npm run example:web printed no URL within ${timeoutMs} ms:\n${lines.join('\n')}\n${errors.join('')}`));
    }, timeoutMs);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`npm run example:web exited (${signal ?? code}) before printing its URL:\n${lines.join('\n')}\n${errors.join('')}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const urls = printedUrls.exec(line);
      if (!urls) return;
      clearTimeout(timer);
      resolve({
        pageUrl: urls[1]!,
        apiUrl: urls[2]!,
        lines,
        apiLog: () => lines.filter((printed) => printed.startsWith('{')).map((printed) => JSON.parse(printed) as Record<string, unknown>),
        stop: async (signal, { group, timeoutMs: stopTimeoutMs }) => {
          if (group) process.kill(-child.pid!, signal);
          else child.kill(signal);
          let timer: NodeJS.Timeout | undefined;
          const stopped = await Promise.race([exited, new Promise<null>((done) => (timer = setTimeout(() => done(null), stopTimeoutMs)))]);
          clearTimeout(timer);
          if (stopped) return stopped;
          process.kill(-child.pid!, 'SIGKILL');
          throw new Error(`npm run example:web did not stop within ${stopTimeoutMs} ms of ${signal}`);
        },
      });
    });
  });
}

/** Whether something accepts connections at `url`'s host and port. */
export function listens(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
