import { execFile } from 'node:child_process';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import express, { type Express } from 'express';
import { callableWithoutNew, createHttpServer } from './http-server';

const repoRoot = path.resolve(__dirname, '../../..');

interface Seen {
  /** Prototypes as the server created the objects, before Express ran. */
  createdWith: { req: object | null; res: object | null };
  /** The same inside a route. */
  inRoute: { req: object | null; res: object | null };
  nodeObjects: boolean;
}

/** `app` served by `createHttpServer`, recording what each request's objects were made of. */
async function serve(app: Express, seen: Seen[]): Promise<{ server: Server; url: string }> {
  const pending = new Map<IncomingMessage, Seen['createdWith']>();
  app.get('/probe', (req, res) => {
    seen.push({
      createdWith: pending.get(req)!,
      inRoute: { req: Object.getPrototypeOf(req) as object, res: Object.getPrototypeOf(res) as object },
      nodeObjects: req instanceof IncomingMessage && res instanceof ServerResponse,
    });
    res.set('X-Probe', 'yes').json({ host: req.get('host') !== undefined });
  });
  const server = createHttpServer(app);
  // Runs before Express: the objects as Node's server made them.
  server.prependListener('request', (req, res) => {
    pending.set(req, { req: Object.getPrototypeOf(req) as object, res: Object.getPrototypeOf(res) as object });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('createHttpServer', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

  it("creates each request and response with the app's own prototypes, which Express then keeps", async () => {
    const app = express();
    const seen: Seen[] = [];
    const { server, url } = await serve(app, seen);
    servers.push(server);

    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${url}/probe`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-probe')).toBe('yes');
      expect(await response.json()).toEqual({ host: true });
    }
    expect(seen).toHaveLength(2);
    for (const { createdWith, inRoute, nodeObjects } of seen) {
      expect(createdWith.req).toBe(app.request);
      expect(createdWith.res).toBe(app.response);
      expect(inRoute.req).toBe(app.request);
      expect(inRoute.res).toBe(app.response);
      expect(nodeObjects).toBe(true);
    }
  });

  it('gives each app its own prototypes', async () => {
    const [first, second] = [express(), express()];
    const seen: Seen[][] = [[], []];
    for (const [index, app] of [first, second].entries()) {
      const { server, url } = await serve(app, seen[index]!);
      servers.push(server);
      expect((await fetch(`${url}/probe`)).status).toBe(200);
    }
    for (const [index, app] of [first, second].entries()) {
      expect(seen[index]![0]!.createdWith.req).toBe(app.request);
      expect(seen[index]![0]!.createdWith.res).toBe(app.response);
    }
  });

  it.each([
    ['a class', class Example {}, false],
    ['a function', function Example() {}, true],
    ["Node's IncomingMessage (else the plain server is in use)", IncomingMessage, true],
    ["Node's ServerResponse (else the plain server is in use)", ServerResponse, true],
  ])('tells whether %s can be called without new', (_name, constructor, expected) => {
    expect(callableWithoutNew(constructor)).toBe(expected);
  });

  // The reason for all this, checked on V8 itself: in a process of its own
  // with `--allow-natives-syntax`, the hidden classes of the last 40 of 200
  // requests on one connection counted (the child compiles TypeScript: a
  // minute allowed on a loaded machine). Plain `app.listen` shows the
  // problem, a class per request (if a V8 release stops giving
  // swapped-prototype objects their own hidden classes, that row fails, and
  // `createHttpServer` is no longer needed); with `createHttpServer` they
  // share one, or two if V8 widened a field's representation mid-run.
  it.each([
    ['app.listen', 'a hidden class per request', 'plain', (classes: number) => expect(classes).toBe(40)],
    ['createHttpServer', 'shared hidden classes', 'app-classes', (classes: number) => expect(classes).toBeLessThanOrEqual(2)],
  ])("with %s, the requests' objects get %s", async (_name, _outcome, mode, check) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--allow-natives-syntax', '-r', path.join(repoRoot, 'test/soak/register.cjs'), path.join(__dirname, 'test-support/hidden-class-probe.ts'), mode],
      { cwd: repoRoot, timeout: 60_000 },
    );
    const classes = JSON.parse(stdout) as { req: number; res: number };
    check(classes.req);
    check(classes.res);
  }, 65_000);
});
