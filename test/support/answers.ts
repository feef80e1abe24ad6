import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { defaultSpecPath } from '../../server/src/http/spec';
import type { RawRequest, RawResponse } from './http';

/**
 * What every answer of the API must look like, whatever was asked:
 * - never a 5xx (except the 503s of a store outage, when the caller allows them);
 * - a body the spec documents for the operation and status (errors of
 *   requests that match no operation: the common error shape);
 * - helmet's security headers, on errors too;
 * - nothing internal: no stack trace, driver message, internal field or
 *   fixture value that members never see.
 *
 * Problems are returned as strings (not thrown), so the soak can count them too.
 */

const specPath = defaultSpecPath;

interface OperationObject {
  operationId: string;
  responses: Record<string, { $ref?: string; content?: Record<string, { schema?: object }> }>;
}
interface Spec {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, object>; responses: Record<string, { content?: Record<string, { schema?: object }> }> };
}

export const spec = parse(readFileSync(specPath, 'utf8')) as Spec;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, 'spec');

interface Operation {
  operationId: string;
  method: string;
  /** Path template split on '/', e.g. ['', 'client', 'users', '{correlation_id}', 'sessions']. */
  segments: string[];
  pointer: string;
  statuses: Set<number>;
}

const operations: Operation[] = Object.entries(spec.paths).flatMap(([template, methods]) =>
  Object.entries(methods)
    .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
    .map(([method, operation]) => ({
      operationId: operation.operationId,
      method: method.toUpperCase(),
      segments: template.split('/'),
      pointer: `/paths/${template.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`,
      statuses: new Set(Object.keys(operation.responses).map(Number)),
    })),
);

/** The spec operation a request is for: same method, same path shape (exact case, no trailing slash). */
export function operationOf(method: string, rawPath: string): Operation | undefined {
  const pathOnly = rawPath.split('?')[0] ?? '';
  const segments = pathOnly.split('/');
  return operations.find(
    (op) =>
      op.method === method.toUpperCase() &&
      op.segments.length === segments.length &&
      op.segments.every((s, i) => (s.startsWith('{') ? (segments[i] ?? '') !== '' : s === segments[i])),
  );
}

const validators = new Map<string, ValidateFunction>();
function compiled(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

function responseSchemaRef(op: Operation, status: number): string {
  const operation = spec.paths[op.segments.join('/')]?.[op.method.toLowerCase()];
  const response = operation?.responses[String(status)];
  if (response?.$ref) return `spec#${response.$ref.slice(1)}/content/application~1json/schema`;
  return `spec#${op.pointer}/responses/${status}/content/application~1json/schema`;
}

/** The common error shape, for answers outside the spec's operations (404, 405, 431...). */
const genericError = ajv.compile({
  type: 'object',
  additionalProperties: false,
  required: ['statusCode', 'errorCode', 'errorMessage'],
  properties: {
    statusCode: { type: 'integer' },
    errorCode: { type: 'string', pattern: '^[A-Z_]+$' },
    errorMessage: { type: 'string', minLength: 1 },
    details: { $ref: 'spec#/components/schemas/ErrorDetails' },
  },
});

/** The documented body of a 503 (and /readyz when the store is down). */
export const serviceUnavailableBody = { statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' };

/** Helmet's headers the API relies on; every response must carry them. */
const requiredHeaders: Record<string, RegExp> = {
  'content-security-policy': /default-src 'none'/,
  'x-content-type-options': /^nosniff$/,
  'x-frame-options': /^SAMEORIGIN$|^DENY$/,
  'strict-transport-security': /max-age=\d+/,
  'referrer-policy': /^no-referrer$/,
  'cross-origin-resource-policy': /^same-origin$/,
  'x-request-id': /^[A-Za-z0-9._-]{1,128}$/,
};

/**
 * Keys members never see (internal ids, secrets' digests, administrative
 * fields, the store's own fields). `version` is a wallet's and a definition's.
 * (A definition's `status` is left to the schema check: /healthz says `status` too.)
 */
const internalKeys = new Set([
  '_id',
  'apiKey',
  'apiKeyHash',
  'digest',
  'keyId',
  'tokenHash',
  'walletId',
  'version',
  'adminId',
  'contributions',
  'clientId',
  'excludedFromCap',
  'systemOfRecord',
  'basedOn',
  'features',
  'scopeType',
  'internalRef',
  'balances',
  'reservations',
  'stack',
  'cause',
  'err',
]);

/** Texts that only appear when something internal leaks (the fixture's canaries included). */
const leakPatterns: RegExp[] = [
  /\bat [\w.<>$ ]*\(?[^\s()]*:\d+:\d+\)?/, // stack frame
  /node_modules|\/work\/|server\/(src|dist)\//,
  /\b(RangeError|TypeError|SyntaxError|ReferenceError|URIError)\b/,
  /Mongo[A-Z]\w*|E11000|BSON|topology|ECONNREFUSED|ECONNRESET/,
  /\binjected fault\b|store unavailable/,
  /household:hh-|member:m-/, // wallet ids
  /\b[0-9a-f]{64}\b/, // SHA-256 digests (api key, session token)
  /ADM-vd-|INT-7|LOYALTY_CORE|vd-base/, // fixture values of internal fields
];

/** An error page instead of the JSON error body (Express's default handler, with the stack outside production). */
const htmlPage = /<html|<pre>|<!DOCTYPE/i;

export interface AnswerOptions {
  /** Accept a documented 503 (during an injected outage). */
  allow503?: boolean;
}

export function problemsOfAnswer(req: RawRequest, res: RawResponse, options: AnswerOptions = {}): string[] {
  const problems: string[] = [];
  const where = `${req.method} ${req.path.slice(0, 120)} -> ${res.status}`;
  const add = (message: string) => problems.push(`${where}: ${message}`);

  if (res.status >= 500 && !(res.status === 503 && options.allow503)) add(`server error ${res.text.slice(0, 300)}`);
  if (res.status < 200 || res.status >= 600) add('status out of range');

  for (const [name, required] of Object.entries(requiredHeaders)) {
    const value = res.headers[name];
    // /docs serves swagger-ui under its own, still closed, policy.
    const pattern = name === 'content-security-policy' && req.path.startsWith('/docs') ? /default-src 'self'.*frame-ancestors 'none'/ : required;
    if (typeof value !== 'string' || !pattern.test(value)) add(`header ${name} is ${JSON.stringify(value)}`);
  }
  if (res.headers['x-powered-by'] !== undefined) add('x-powered-by is set');
  if (res.status === 503 || res.status === 429) {
    if (!/^\d+$/.test(String(res.headers['retry-after'] ?? ''))) add(`no Retry-After on ${res.status}`);
  }

  const hasBody = req.method !== 'HEAD' && res.status !== 204 && res.status !== 304;
  const op = operationOf(req.method, req.path);
  if (hasBody && (res.status >= 400 || op)) {
    if (!/^application\/json/.test(String(res.headers['content-type']))) add(`content-type ${String(res.headers['content-type'])}`);
    if (res.json === undefined) add(`body is not JSON: ${JSON.stringify(res.text.slice(0, 200))}`);
    else problems.push(...bodyProblems(op, res, where));
  }
  problems.push(...leakProblems(req, res, where));
  return problems;
}

function bodyProblems(op: Operation | undefined, res: RawResponse, where: string): string[] {
  const problems: string[] = [];
  const body = res.json as Record<string, unknown>;
  if (res.status >= 400 && body?.statusCode !== res.status) problems.push(`${where}: statusCode ${String(body?.statusCode)} differs`);
  let validate: ValidateFunction;
  if (op) {
    if (!op.statuses.has(res.status)) return [...problems, `${where}: ${op.operationId} does not document ${res.status}: ${res.text.slice(0, 200)}`];
    validate = compiled(responseSchemaRef(op, res.status));
  } else if (res.status >= 400) {
    validate = genericError;
  } else {
    return problems;
  }
  if (!validate(res.json)) problems.push(`${where}: body breaks the spec (${ajv.errorsText(validate.errors)}): ${res.text.slice(0, 300)}`);
  // "An unexpected fault. Nothing about it is disclosed." / the store's outage: fixed texts only.
  if (res.status === 500 && body?.errorMessage !== 'Internal error') problems.push(`${where}: a 500 that discloses ${JSON.stringify(body?.errorMessage)}`);
  if (res.status === 503 && body?.errorMessage !== serviceUnavailableBody.errorMessage) problems.push(`${where}: a 503 that discloses ${JSON.stringify(body?.errorMessage)}`);
  return problems;
}

function leakProblems(req: RawRequest, res: RawResponse, where: string): string[] {
  const problems: string[] = [];
  // The published spec and its viewer name every field and hold HTML by design.
  if (res.status < 400 && /^\/(openapi\.json|docs)/.test(req.path)) return problems;
  const sent = `${req.path}\n${JSON.stringify(req.headers ?? {})}\n${req.body?.toString() ?? ''}`;
  if (res.status >= 400 && htmlPage.test(res.text)) problems.push(`${where}: an HTML error page: ${res.text.slice(0, 300)}`);
  // A sealed session token is ciphertext: any text may turn up in it by chance.
  const token = (res.json as { sessionToken?: unknown } | undefined)?.sessionToken;
  const scanned = typeof token === 'string' ? res.text.replace(token, '<sessionToken>') : res.text;
  for (const pattern of leakPatterns) {
    const match = pattern.exec(scanned);
    // What the client sent may come back (invalidCatalogueItems echo it): not a leak.
    if (match && !sent.includes(match[0])) problems.push(`${where}: leaks ${JSON.stringify(match[0])} in ${scanned.slice(0, 200)}`);
  }
  if (res.json !== undefined) {
    for (const key of keysOf(res.json)) {
      if (internalKeys.has(key) && !sent.includes(key)) problems.push(`${where}: internal field ${key} in ${res.text.slice(0, 200)}`);
    }
  }
  return problems;
}

/** Every object key in a JSON value, except inside invalidCatalogueItems (the request's own items, echoed). */
function keysOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) keysOf(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'invalidCatalogueItems') continue;
      out.push(key);
      keysOf(child, out);
    }
  }
  return out;
}
