/*
 * Run by http-server.test.ts in its own process, with V8's natives syntax:
 *
 *   node --allow-natives-syntax -r test/soak/register.cjs hidden-class-probe.ts <plain|app-classes>
 *
 * Serves a small Express app (a middleware and a route, as the real app
 * has) either with `app.listen` or with `createHttpServer`, sends requests
 * one after the other on one kept-alive connection, and prints as JSON
 * whether two late requests' `req` objects, and their `res` objects, ended
 * with the same hidden class.
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

  // The two before the last: both long finished on the server's side too
  // (the last one's 'finish' may still be pending when its client sees
  // the end), so each has had every property its lifecycle adds.
  const [previous, last] = seen.slice(-3, -1) as [(typeof seen)[number], (typeof seen)[number]];
  process.stdout.write(JSON.stringify({ req: sameHiddenClass(previous.req, last.req), res: sameHiddenClass(previous.res, last.res) }));
  agent.destroy();
  server.close();
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
