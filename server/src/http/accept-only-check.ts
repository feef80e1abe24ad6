import type { Request } from 'express';
import Ajv, { type ValidateFunction } from 'ajv';
import { declaresBody, isPlainJsonContentType } from './json-body';
import type { ApiSpec } from './spec';

/*
 * The accept-only check of one operation (see request-validation.ts),
 * compiled with ajv from the spec's dereferenced document: the operation's
 * schemas (parameters, headers, body) applied to a request of the plain
 * shape real clients send. It says "valid" or "ask the validator", never
 * "invalid".
 */

/** True: the request meets every rule of its operation. False: ask EOV. */
export type AcceptOnlyCheck = (req: Request) => boolean;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonObject;
  [key: string]: Json | undefined;
}

/** Characters that need no percent-encoding anywhere in a URL (RFC 3986 "unreserved"). */
const unreservedOnly = /^[A-Za-z0-9._~-]+$/;

/** Parameter fields that do not change how a value is read or checked; a parameter with any other field (style, explode, content...) gets no accept-only check. */
const parameterFieldsAllowed = new Set(['name', 'in', 'required', 'schema', 'description', 'example', 'examples', 'deprecated']);

type ParameterGroup = { properties: JsonObject; required: string[] };
type ParameterGroups = Record<'path' | 'query' | 'header', ParameterGroup>;

/**
 * The check of the operation at `route`, or null when its schemas use
 * anything beyond plain JSON Schema keywords (formats, nullable, readOnly,
 * defaults, discriminators...): EOV alone validates it then.
 */
export function buildAcceptOnlyCheck(ajv: Ajv, dereferenced: ApiSpec, route: { readonly method: string; readonly path: string }): AcceptOnlyCheck | null {
  const root = dereferenced as unknown as JsonObject;
  const pathItem = asObject(asObject(root.paths)?.[route.path]);
  const operation = asObject(pathItem?.[route.method]);
  const groups = pathItem && operation ? parameterGroups(pathItem, operation) : null;
  if (!operation || !groups) return null;
  const objectOf = (group: ParameterGroup): JsonObject => ({ type: 'object', properties: group.properties, required: group.required });
  const validateParameters = ajv.compile({
    type: 'object',
    properties: {
      params: { ...objectOf(groups.path), additionalProperties: false },
      query: { ...objectOf(groups.query), additionalProperties: false },
      headers: objectOf(groups.header),
    },
  });
  const queryNames = new Set(Object.keys(groups.query.properties));
  const headerNames = Object.keys(groups.header.properties);

  let validateBody: ValidateFunction | null = null;
  const requestBody = asObject(operation.requestBody);
  if (requestBody) {
    const bodySchema = plainSchema(asObject(asObject(requestBody.content)?.['application/json'])?.schema);
    if (!bodySchema) return null;
    validateBody = ajv.compile(bodySchema);
  }

  const httpMethod = route.method.toUpperCase();
  return (req) => {
    // Express routes a HEAD to the GET route; EOV answers it 405.
    if (req.method !== httpMethod) return false;
    const url = req.originalUrl;
    const queryStart = url.indexOf('?');
    // Percent-encoded path: EOV decodes it its own way; let it.
    if (url.lastIndexOf('%', queryStart === -1 ? url.length : queryStart) !== -1) return false;
    const query = queryStart === -1 ? {} : plainQuery(url.slice(queryStart + 1), queryNames);
    if (!query) return false;
    const headers: Record<string, string | string[] | undefined> = {};
    for (const name of headerNames) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
    if (!validateParameters({ params: req.params, query, headers })) return false;
    const withBody = declaresBody(req);
    if (!validateBody) return !withBody;
    if (!withBody || !isPlainJsonContentType(req.headers['content-type'])) return false;
    const body: unknown = req.body;
    return typeof body === 'object' && body !== null && !Array.isArray(body) && validateBody(body);
  };
}

/** The operation's parameters by location, as object schemas; null when one is not plain (or a cookie). */
function parameterGroups(pathItem: JsonObject, operation: JsonObject): ParameterGroups | null {
  // Operation-level parameters override path-level ones with the same name and location.
  const byKey = new Map<string, Parameter>();
  for (const source of [pathItem.parameters, operation.parameters]) {
    for (const raw of Array.isArray(source) ? source : []) {
      const parameter = asObject(raw) as Parameter | undefined;
      if (!parameter || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') return null;
      byKey.set(`${parameter.in}:${parameter.name}`, parameter);
    }
  }
  const groups: ParameterGroups = {
    path: { properties: {}, required: [] },
    query: { properties: {}, required: [] },
    header: { properties: {}, required: [] },
  };
  for (const parameter of byKey.values()) {
    if (parameter.in !== 'path' && parameter.in !== 'query' && parameter.in !== 'header') return null; // cookies: EOV only
    if (Object.keys(parameter).some((field) => !parameterFieldsAllowed.has(field))) return null;
    const schema = plainSchema(parameter.schema);
    if (!schema) return null;
    // EOV reads header parameters under their lower-case names, as Node gives them.
    const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
    const group = groups[parameter.in];
    group.properties[name] = schema;
    if (parameter.required === true || parameter.in === 'path') group.required.push(name);
  }
  return groups;
}

/** `a=1&b=2` as { a: '1', b: '2' } when every pair is plain (a known name once, a non-empty unreserved value); otherwise null. */
function plainQuery(queryString: string, known: Set<string>): Record<string, string> | null {
  const query: Record<string, string> = {};
  if (queryString === '') return query;
  for (const pair of queryString.split('&')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) return null;
    const name = pair.slice(0, equals);
    const value = pair.slice(equals + 1);
    if (!known.has(name) || Object.hasOwn(query, name) || !unreservedOnly.test(value)) return null;
    query[name] = value;
  }
  return query;
}

/** JSON Schema keywords whose meaning is the same for ajv and for EOV. */
const plainKeywords = new Set([
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'items',
  'minProperties',
  'maxProperties',
  'properties',
  'required',
  'additionalProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'title',
  'description',
  'example',
]);

/** Sub-schemas nest no deeper than this in a plain schema (a cycle would never end). */
const maxSchemaDepth = 32;

/** The schema, for ajv, if it uses plain keywords only (and has no cycle); otherwise null. */
function plainSchema(node: Json | undefined): JsonObject | null {
  const schema = asObject(node);
  return schema && isPlain(schema, 0) ? schema : null;
}

function isPlain(schema: JsonObject, depth: number): boolean {
  if (depth > maxSchemaDepth) return false;
  const isPlainChild = (child: Json | undefined): boolean => {
    const object = asObject(child);
    return object !== undefined && isPlain(object, depth + 1);
  };
  return Object.entries(schema).every(([keyword, value]) => {
    if (!plainKeywords.has(keyword)) return false;
    switch (keyword) {
      case 'properties':
        return Object.values(asObject(value) ?? {}).every(isPlainChild);
      case 'items':
      case 'not':
        return isPlainChild(value);
      case 'additionalProperties':
        return typeof value === 'boolean' || isPlainChild(value);
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        return Array.isArray(value) && value.every(isPlainChild);
      case 'type':
        // OpenAPI 3.0 has one type per schema; a list would mean something else to ajv.
        return typeof value === 'string';
      default:
        return true;
    }
  });
}

function asObject(value: Json | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}
