/*
 * Run by http-server.test.ts in its own process, with V8's natives syntax:
 *
 *   node --allow-natives-syntax -r test/soak/register.cjs hidden-class-probe.ts <plain|app-classes>
 *
 * Serves a small Express app (a middleware and a route, as the real app
 * has) either with `app.listen` or with `createHttpServer`, sends requests
 * one after the other on one kept-alive connection, and prints as JSON
 * how many distinct hidden classes the `req` objects, and the `res` objects,
 * of the last 40 requests ended with.
 */
import { Agent, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHttpServer } from '../http-server';

declare function haveSameMap(a: object, b: object): boolean;
// `%HaveSameMap` is not TypeScript: built at run time, where the flag allows it.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as typeof haveSameMap;

const requests = 200;

async function main(): Promise<void> {
  const mode = process.argv[2];
  const app = express();
  const seen: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
  app.use((req, res, next) => {
    res.locals.started = Date.now();
    seen.push({ req, res });
    next();
  });
  app.get('/items/:id', (req, res) => void res.json({ id: req.params.id }));

  const server: Server = mode === 'app-classes' ? createHttpServer(app).listen(0, '127.0.0.1') : app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < requests; i++) await get(port, agent, `/items/${i}`);

  // The last 40 requests (all finished on the server's side but the very
  // last, left out), grouped by hidden class: one group when every request
  // gets the same classes, one per request when each gets its own. A field
  // whose representation V8 widens mid-run (timing can decide when) gives
  // objects a newer class from then on, so a second group is no failure.
  const window = seen.slice(-41, -1);
  process.stdout.write(JSON.stringify({ req: classesAmong(window.map((s) => s.req)), res: classesAmong(window.map((s) => s.res)) }));
  agent.destroy();
  server.close();
}

/** How many distinct hidden classes these objects have. */
function classesAmong(objects: object[]): number {
  const representatives: object[] = [];
  for (const o of objects) if (!representatives.some((r) => sameHiddenClass(r, o))) representatives.push(o);
  return representatives.length;
}

function get(port: number, agent: Agent, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    request({ port, path, agent, host: '127.0.0.1' }, (res) => {
      res.resume();
      res.on('end', resolve);
    })
      .on('error', reject)
      .end();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
