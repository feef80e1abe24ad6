import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/**
 * The HTTP server for `app`. Each request and response is created with
 * Express's own prototypes (`app.request`, `app.response`) from the start.
 *
 * Why: for every request, Express calls `Object.setPrototypeOf(req,
 * app.request)` and the same for `res`. V8 gives an object whose prototype was
 * swapped a new hidden class for every property added afterwards, and Node,
 * the router and the middleware add many (statusCode, _header, baseUrl, the
 * listeners...). So each request's `req` and `res` had hidden classes no other
 * request shared. Every property access on them in Node's HTTP code, in
 * Express and in ours missed its inline cache and went through V8's slow
 * lookup. That was about half of the server's CPU time per request (the
 * bench's profiles: V8's `LookupIterator`, `MigrateToMap`, megamorphic loads).
 * See expressjs/express#5998 and nodejs/node#37457.
 *
 * When the objects already have the prototype Express sets, its
 * `setPrototypeOf` changes nothing, and every request's objects share hidden
 * classes. The request and response are otherwise Node's own: the
 * constructors below only run Node's.
 *
 * They call Node's constructors as functions (`IncomingMessage.apply(this,
 * args)`), as Node's own streams do with their parents. Construction through
 * `Reflect.construct` with another `new.target` would also set the
 * prototype, but V8 then again gives each object its own hidden classes.
 * Node defines both as plain functions (checked on Node 20); if a later
 * Node makes them classes, the plain server is used, and
 * `http-server.test.ts` fails to say so.
 */
export function createHttpServer(app: Express): Server {
  if (!callableWithoutNew(IncomingMessage) || !callableWithoutNew(ServerResponse)) return createServer(app);
  return createServer({ IncomingMessage: requestClass(app), ServerResponse: responseClass(app) }, app);
}

function requestClass(app: Express): typeof IncomingMessage {
  function AppRequest(this: IncomingMessage, ...args: ConstructorParameters<typeof IncomingMessage>): void {
    (IncomingMessage as unknown as (...params: typeof args) => void).apply(this, args);
  }
  AppRequest.prototype = app.request;
  return AppRequest as unknown as typeof IncomingMessage;
}

function responseClass(app: Express): typeof ServerResponse {
  function AppResponse(this: ServerResponse, ...args: ConstructorParameters<typeof ServerResponse>): void {
    (ServerResponse as unknown as (...params: typeof args) => void).apply(this, args);
  }
  AppResponse.prototype = app.response;
  return AppResponse as unknown as typeof ServerResponse;
}

/** A `class` constructor throws when called without `new`; Node's function constructors do not. */
export function callableWithoutNew(constructor: object): boolean {
  return !/^class\b/.test(Function.prototype.toString.call(constructor));
}
