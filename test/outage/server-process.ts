import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { send } from '../support/http';
import { childProcessEnv } from '../support/process-env';

/*
 * The server as its own process, as operators run it (`node server/src/main.ts`
 * compiled on the fly by test/soak/register.cjs: no build), for the scripts
 * in this folder. It gets none of this process's MONGODB_* or npm_* settings,
 * only `env`; its output goes to `logFile`.
 */

const repoRoot = path.resolve(__dirname, '../..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts it on a free port; resolves once /readyz answers 200 (on 127.0.0.1). */
export async function startServerProcess(env: Record<string, string>, logFile: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, ['-r', path.join(repoRoot, 'test/soak/register.cjs'), path.join(repoRoot, 'server/src/main.ts')], {
    env: childProcessEnv({ ...env, PORT: String(port), LOG_LEVEL: 'warn' }),
    stdio: ['ignore', out, out],
  });
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before listening (log: ${logFile})`);
    const ready = await send(url, { method: 'GET', path: '/readyz' }, 2000).catch(() => null);
    if (ready?.status === 200) return { child, url };
    await sleep(250);
  }
  throw new Error(`the server did not become ready within 60 s (log: ${logFile})`);
}
