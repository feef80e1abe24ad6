// Checks that the spec's examples can never drift from its schemas: mock
// answers made from the spec alone, as a mock server or another client
// generator makes them, must pass the independent validator that checks the
// SDK's pact (@pactflow/swagger-mock-validator): undocumented fields,
// wrong types and out-of-range values are errors.
//
// For each operation and documented status: one answer per example of the
// response body (`examples`, or `example`) and one generated from its
// schema (openapi-sampler, Redoc's sampler: the schemas' own examples, the
// rest filled in), each with the examples of the response's headers. Also:
// every JSON response has an example, every response header has one, and
// the shared 401 shows each of its causes. Before trusting a pass, the
// validator must refuse answers that break the spec.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SwaggerMockValidatorFactory } from '@pactflow/swagger-mock-validator';
import { sample } from 'openapi-sampler';

const methods = ['get', 'head', 'post', 'put', 'patch', 'delete'];
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Problems found, as lines; none when the spec's examples hold. */
export async function checkExamples(spec, specPath) {
  const resolve = (node) => {
    if (!isObject(node) || typeof node.$ref !== 'string') return node;
    let target = spec;
    for (const token of node.$ref.slice(2).split('/')) target = target?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
    return resolve(target);
  };
  const operations = Object.entries(spec.paths).flatMap(([pathName, pathItem]) =>
    methods.filter((m) => isObject(pathItem[m])).map((method) => ({ method, pathName, pathItem, operation: pathItem[method] })),
  );

  const problems = [];
  const answers = [];
  for (const op of operations) {
    for (const [status, raw] of Object.entries(op.operation.responses)) {
      const where = `${op.operation.operationId} ${status}`;
      const response = resolve(raw);
      const headers = {};
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        const example = resolve(header).example;
        if (example === undefined) problems.push(`${where}: header ${name} has no example`);
        else headers[name] = String(example);
      }
      const media = resolve(response.content?.['application/json']);
      if (!media) {
        answers.push({ op, status, source: 'no body', headers });
        continue;
      }
      const examples = media.examples
        ? Object.entries(media.examples).map(([name, e]) => [`examples.${name}`, resolve(e).value])
        : media.example !== undefined ? [['example', media.example]] : [];
      if (examples.length === 0) problems.push(`${where}: the JSON body has no example`);
      const generated = sample(media.schema, { skipReadOnly: true }, spec);
      for (const [source, body] of [...examples, ['generated', generated]]) answers.push({ op, status, source, headers, body });
    }
  }

  const causes = spec.components.schemas.UnauthorizedErrorMessage.enum;
  const shown = Object.values(spec.components.responses.Unauthorized.content['application/json'].examples).map((e) => e.value.errorMessage);
  for (const cause of causes) if (!shown.includes(cause)) problems.push(`the shared 401 has no example of "${cause}"`);

  const scratch = mkdtempSync(path.join(tmpdir(), 'spec-examples-'));
  const validate = async (list, name) => {
    const file = path.join(scratch, `${name}.json`);
    writeFileSync(file, JSON.stringify(pactOf(list, resolve)));
    const outcome = await SwaggerMockValidatorFactory.create().validate({ specPathOrUrl: specPath, mockPathOrUrl: file });
    return [...outcome.errors, ...outcome.warnings].map((f) => `${f.code} in "${f.mockDetails?.interactionDescription}": ${f.message}`);
  };

  // Self-test: what a looser spec let a mock server answer must be refused.
  const success = answers.find((a) => a.op.operation.operationId === 'updateReservation' && a.status === '200' && a.source !== 'generated');
  for (const change of [{ availablePointBalance: -85556044 }, { pointBalance: 91729857.97 }, { undocumented: true }]) {
    const refused = await validate([{ ...success, body: { ...success.body, ...change } }], 'self-test');
    if (!refused.some((f) => f.startsWith('response.body.incompatible'))) {
      problems.push(`self-test: the validator accepted ${JSON.stringify(change)}; the examples check cannot be trusted`);
    }
  }

  problems.push(...(await validate(answers, 'answers')));
  return { problems, count: answers.length };
}

/** The answers as a pact: each behind a request the spec accepts (parameter examples, the first body example, credentials). */
function pactOf(answers, resolve) {
  const requestFor = ({ method, pathName, pathItem, operation }) => {
    const headers = { 'X-Api-Key': 'demo_secret_partner_app_0001', Authorization: 'Bearer st_9kq3ZbJ0m4W2yQ8vT1xH5cN7rL6pD0sA' };
    let requestPath = pathName;
    for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map(resolve)) {
      if (parameter.in === 'path') requestPath = requestPath.replace(`{${parameter.name}}`, String(parameter.example));
      if (parameter.in === 'header') headers[parameter.name] = String(parameter.example);
    }
    const examples = resolve(operation.requestBody)?.content?.['application/json']?.examples;
    const body = examples ? Object.values(examples)[0].value : undefined;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return { method: method.toUpperCase(), path: requestPath, headers, ...(body === undefined ? {} : { body }) };
  };
  return {
    consumer: { name: 'spec-examples' },
    provider: { name: 'loyalty-api' },
    interactions: answers.map((answer) => ({
      description: `${answer.op.operation.operationId} ${answer.status} ${answer.source}`,
      request: requestFor(answer.op),
      response: {
        status: Number(answer.status),
        headers: { ...(answer.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...answer.headers },
        ...(answer.body === undefined ? {} : { body: answer.body }),
      },
    })),
    metadata: { pactSpecification: { version: '2.0.0' } },
  };
}
