import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { defaultSpecPath } from '../http/spec';
import type { OperationId } from '../http/routes';

/**
 * Checks a response body against what the spec documents for this operation
 * and status. The app's own response validation only covers responses made
 * after the validator ran; errors raised before it (API key, rate limit,
 * body parsing, session, body depth) are checked here.
 */
type Spec = {
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, ResponseObject> }>>;
  components: { responses: Record<string, ResponseObject> };
};
type ResponseObject = { $ref?: string; content?: Record<string, { schema?: object }> };

const spec = parse(readFileSync(defaultSpecPath, 'utf8')) as Spec;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
// OpenAPI's integer formats, which ajv-formats leaves out: whole numbers a JavaScript number holds exactly.
ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
ajv.addSchema(spec, 'spec');

/** Throws unless `body` is what the spec documents for `status` of `operationId`. */
export function expectDocumentedBody(operationId: OperationId, status: number, body: unknown): void {
  const validate = validatorFor(operationId, status);
  if (!validate(body)) {
    throw new Error(`${operationId} ${status}: body breaks the spec: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
  }
}

const validators = new Map<string, ValidateFunction>();

function validatorFor(operationId: OperationId, status: number): ValidateFunction {
  const key = `${operationId} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `spec#${schemaPointer(operationId, status)}` });
    validators.set(key, validate);
  }
  return validate;
}

function schemaPointer(operationId: OperationId, status: number): string {
  for (const [path, operations] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (operation.operationId !== operationId) continue;
      const response = operation.responses[String(status)];
      if (!response) throw new Error(`${operationId} documents no ${status}`);
      if (response.$ref) return `${response.$ref.slice(1)}/content/application~1json/schema`;
      const escapedPath = path.replaceAll('~', '~0').replaceAll('/', '~1');
      return `/paths/${escapedPath}/${method}/responses/${status}/content/application~1json/schema`;
    }
  }
  throw new Error(`no operation ${operationId} in the spec`);
}
