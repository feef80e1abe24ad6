import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';
import { answerParserErrors } from './client-error';

/**
 * The HTTP server for `app`, answering requests Node's parser refuses in
 * the documented error shape (`answerParserErrors`). Each request and response is created with
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
  const limits = { maxHeaderSize: maxRequestHeaderBytes };
  const server =
    !callableWithoutNew(IncomingMessage) || !callableWithoutNew(ServerResponse)
      ? createServer(limits, app)
      : createServer(
          { ...limits, IncomingMessage: withPrototype(IncomingMessage, app.request), ServerResponse: withPrototype(ServerResponse, app.response) },
          app,
        );
  // Every server of the app answers what Node's parser refuses (431, 400) in the documented shape.
  answerParserErrors(server);
  return server;
}

/**
 * The spec's limit on a request's headers and URL (its `431`), set on the
 * server rather than left to Node's default, which `--max-http-header-size`
 * changes for the whole process (the Pact verification raises it for the
 * proxy in front of the app).
 */
export const maxRequestHeaderBytes = 16 * 1024;

/** A constructor running Node's `base` on objects made with `prototype`. */
function withPrototype<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, prototype: object): T {
  function Constructor(this: object, ...args: unknown[]): void {
    (base as unknown as (...params: unknown[]) => void).apply(this, args);
  }
  Constructor.prototype = prototype;
  return Constructor as unknown as T;
}

/** A `class` constructor throws when called without `new`; Node's function constructors do not. */
export function callableWithoutNew(constructor: object): boolean {
  return !/^class\b/.test(Function.prototype.toString.call(constructor));
}
