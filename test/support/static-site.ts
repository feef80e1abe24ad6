import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';

const repoRoot = path.resolve(__dirname, '../..');

export interface StaticSite {
  /** `http://127.0.0.1:<port>`: the origin its pages run in. */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Bundles `entry` for a browser as the web example is bundled (its tsconfig:
 * `@loyalty/sdk` from sdk/dist), and returns the code and the files it was made of.
 */
export async function bundleForBrowser(entry: string): Promise<{ code: string; inputs: string[] }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    write: false,
    metafile: true,
    tsconfig: path.join(repoRoot, 'examples/web/tsconfig.json'),
  });
  return { code: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs) };
}

/** Serves `/` (an empty page loading `/page.js`) and `/page.js` on 127.0.0.1, a free port. */
export async function serveScript(code: string): Promise<StaticSite> {
  const html = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>SDK</title></head><body><script type="module" src="/page.js"></script></body></html>';
  const server: Server = createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
    else if (req.url === '/page.js') res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(code);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
