import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  decisionCodes,
  operationACodes,
  operationBCodes,
  operationBDecisionMessages,
  operationBSourceMessages,
} from './documented-errors';

type Schema = { enum?: unknown[]; properties?: Record<string, Schema>; $ref?: string };

const spec = parse(readFileSync(path.join(__dirname, '../../openapi/openapi.yaml'), 'utf8'));
const schemas: Record<string, Schema> = spec.components.schemas;

function resolve(schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = schemas[name];
  if (!target) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(target);
}

function enumOf(schemaName: string, property: string): unknown[] {
  const schema = schemas[schemaName];
  const field = schema?.properties?.[property];
  if (!field) throw new Error(`${schemaName}.${property} is not in the spec`);
  return resolve(field).enum ?? [];
}

/** Schemas of a response: the error body of `status` for one operation. */
function errorSchemaName(pathKey: string, method: string, status: string): string {
  let response = spec.paths[pathKey][method].responses[status];
  if (response.$ref) response = spec.components.responses[response.$ref.split('/').pop()];
  return response.content['application/json'].schema.$ref.split('/').pop();
}

const opA = ['/client/users/{correlation_id}/voucher-definitions', 'get'] as const;
const opB = ['/client/users/{correlation_id}/reservations/{reservation_token}', 'put'] as const;
const session = ['/client/users/{correlation_id}/sessions', 'post'] as const;

describe('error enums of the spec', () => {
  const opBError = errorSchemaName(...opB, '400');
  const opAError = errorSchemaName(...opA, '400');

  it.each([...operationBSourceMessages, ...operationBDecisionMessages])(
    'Operation B 400 errorMessage enum lists %p',
    (message) => {
      expect(enumOf(opBError, 'errorMessage')).toContain(message);
    },
  );

  it.each(operationBCodes)('Operation B 400 errorCode enum lists %p', (code) => {
    expect(enumOf(opBError, 'errorCode')).toEqual([code]);
  });

  it('Operation B 400 documents invalidCatalogueItems', () => {
    expect(schemas[opBError]?.properties).toHaveProperty('invalidCatalogueItems');
  });

  it.each(operationACodes)('Operation A 400 errorCode enum lists %p', (code) => {
    expect(enumOf(opAError, 'errorCode')).toContain(code);
  });

  const statusCodes = Object.entries(decisionCodes).flatMap(([status, code]) => {
    const operations = status === '404' ? [session] : [session, opA, opB];
    return operations.map((op) => [op[1].toUpperCase(), op[0], status, code] as const);
  });

  it.each(statusCodes)('%s %s: %s answers errorCode %p', (method, pathKey, status, code) => {
    const name = errorSchemaName(pathKey, method.toLowerCase(), status);
    expect(enumOf(name, 'errorCode')).toEqual([code]);
    expect(enumOf(name, 'statusCode')).toEqual([Number(status)]);
  });
});
