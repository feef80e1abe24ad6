import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { demoKeys } from './demo-data.mjs';
import { signIn } from './partner-backend.mjs';

/*
 * The partner's backend of the web example, in Node: its sign-in answers
 * only the page it serves, whose origin it is configured with. Whoever sends
 * a request writes its Host and its Origin alike; a backend that compared
 * one with the other would sign in any caller that made them agree.
 */

const repoRoot = path.resolve(__dirname, '../..');
const keys = demoKeys(repoRoot);

let api: TestApp;
let backend: Server;
/** Where the backend listens, and so the origin its page has. */
let origin: string;

beforeAll(async () => {
  api = await startTestApp({ fixture: JSON.parse(readFileSync(path.join(repoRoot, 'server/fixtures/demo.json'), 'utf8')) });
  backend = createServer();
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
  // As serve.mjs does: told the origin it serves its page on.
  const handler = signIn({ apiBaseUrl: api.baseUrl, secretKey: keys.secret, origin });
  backend.on('request', (req, res) => void handler(req, res));
});
afterAll(async () => {
  await new Promise((resolve) => backend.close(resolve));
  await api.close();
});

/** A POST to the backend's sign-in with exactly these headers (node:http sends a Host of the caller's choosing, as any client can). */
function post(headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const { port } = backend.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path: '/sign-in', method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown> }));
    });
    sent.on('error', reject);
    sent.end(JSON.stringify({ member: 'm-alice' }));
  });
}

describe("the web example's sign-in", () => {
  it("signs the member in from the page's own origin: the session the API started, and no key", async () => {
    const { status, body } = await post({ host: new URL(origin).host, origin });
    expect(status).toBe(200);
    expect(body).toEqual({ correlationId: 'm-alice', sessionToken: expect.any(String), expiresAt: expect.any(String), requestId: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain(keys.secret);
  });

  it.each<[string, (page: URL) => Record<string, string>]>([
    ['a forged Host, and an Origin to match it', () => ({ host: 'evil.example', origin: 'http://evil.example' })],
    ['the same server by another name (its page would be on another origin)', (page) => ({ host: `localhost:${page.port}`, origin: `http://localhost:${page.port}` })],
    ["another site's page", (page) => ({ host: page.host, origin: 'https://evil.example' })],
    ['a sandboxed page (Origin null)', (page) => ({ host: page.host, origin: 'null' })],
    ['no Origin (a script, not a browser)', (page) => ({ host: page.host })],
  ])('refuses %s: 403, and no session started', async (_case, headersFor) => {
    const before = api.logs.length;
    const { status, body } = await post(headersFor(new URL(origin)));
    expect(status).toBe(403);
    expect(body).toEqual({ error: "Sign in from this site's own page" });
    expect(api.logs.slice(before).filter((line) => (line.req as { operation?: string } | undefined)?.operation === 'startSession')).toEqual([]);
  });

  it.each([undefined, 'http://127.0.0.1:5173/', '127.0.0.1:5173'])('is made with an exact origin only (not %p)', (given) => {
    expect(() => signIn({ apiBaseUrl: 'http://127.0.0.1:3000', secretKey: 'sk', origin: given as string })).toThrow(/origin must be the page's exact origin/);
  });
});
