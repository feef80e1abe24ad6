// Fails unless the committed pact covers:
//  - every (operation, status) pair the spec documents for /client/... paths;
//  - every documented error code of Operation A, every documented message
//    of Operation B and every 401 and 403 message (the spec's enums), each
//    matched exactly;
//  - the variants the SDK's users depend on (default and explicit business
//    unit, plain lowering, household return, item-level redemption, offline
//    creation, Operations A and B and End Session from the partner's page
//    with its publishable key, End Session from its server, 401 on each
//    operation).
// So a status, code or message added to the spec fails here until a
// consumer interaction covers it.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { committedPact, fail, readJson, rel, specPath } from './pact-lib.mjs';

const spec = parse(readFileSync(specPath, 'utf8'));
const pact = readJson(committedPact);
const interactions = pact.interactions ?? [];

// --- operations of the spec -----------------------------------------------------

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const operations = Object.entries(spec.paths ?? {})
  .filter(([pathName]) => pathName.startsWith('/client/'))
  .flatMap(([pathName, item]) =>
    methods
      .filter((method) => item[method])
      .map((method) => ({
        operationId: item[method].operationId ?? `${method.toUpperCase()} ${pathName}`,
        method: method.toUpperCase(),
        pathName,
        pattern: new RegExp(`^${pathName.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        statuses: Object.keys(item[method].responses ?? {}).filter((s) => /^\d{3}$/.test(s)).map(Number),
      })),
  );

function operationOf(interaction) {
  const { method, path } = interaction.request ?? {};
  return operations.find((op) => op.method === String(method).toUpperCase() && op.pattern.test(path));
}

const problems = [];
const byOperation = new Map(operations.map((op) => [op.operationId, []]));
for (const interaction of interactions) {
  const op = operationOf(interaction);
  const where = `${interaction.request?.method} ${interaction.request?.path}`;
  if (!op) problems.push(`"${interaction.description}": ${where} is no /client operation of the spec`);
  else byOperation.get(op.operationId).push(interaction);
}

// --- (operation, status) pairs ------------------------------------------------------

const table = [];
for (const op of operations) {
  const covered = byOperation.get(op.operationId);
  const row = [];
  for (const status of op.statuses) {
    const count = covered.filter((i) => i.response?.status === status).length;
    row.push(`${status}x${count}`);
    if (count === 0) problems.push(`${op.operationId} ${status}: no interaction`);
  }
  table.push(`  ${op.operationId.padEnd(24)} ${row.join(' ')}`);
}

// --- enums of error codes and messages ------------------------------------------------

const schemas = spec.components?.schemas ?? {};
const body = (i) => i.response?.body?.content;
/** No matching rule on the field: Pact compares it exactly. */
const exact = (i, field) => !i.response?.matchingRules?.body?.[`$.${field}`];

/** Every value of the enum is answered, exactly matched, by an interaction of `operationId` (or of any operation). */
function requireEnum({ operationId, status, field, schemaName }) {
  const values = schemas[schemaName]?.enum;
  if (!Array.isArray(values)) {
    problems.push(`spec: components.schemas.${schemaName} has no enum`);
    return;
  }
  const candidates = operationId ? (byOperation.get(operationId) ?? []) : interactions;
  const seen = candidates.filter((i) => i.response?.status === status && exact(i, field)).map((i) => body(i)?.[field]);
  for (const value of values) {
    if (!seen.includes(value)) problems.push(`${operationId ?? 'any operation'} ${status}: no interaction answers ${field} "${value}" (exactly matched)`);
  }
}

requireEnum({ operationId: 'listVoucherDefinitions', status: 400, field: 'errorCode', schemaName: 'VoucherDefinitionsErrorCode' });
requireEnum({ operationId: 'updateReservation', status: 400, field: 'errorMessage', schemaName: 'ReservationUpdateErrorMessage' });
requireEnum({ operationId: null, status: 401, field: 'errorMessage', schemaName: 'UnauthorizedErrorMessage' });
requireEnum({ operationId: null, status: 403, field: 'errorMessage', schemaName: 'ForbiddenErrorMessage' });

// --- variants -------------------------------------------------------------------------

const requestBody = (i) => {
  const content = i.request?.body?.content;
  return content && typeof content === 'object' ? content : {};
};
const ok = (i) => i.response?.status === 200;
/** Sent as from a page: the request names its Origin. */
const fromPage = (i) => Object.keys(i.request?.headers ?? {}).some((name) => name.toLowerCase() === 'origin');
const variants = [
  ['listVoucherDefinitions', 'default business unit (no businessUnit query)', (i) => ok(i) && !i.request?.query?.businessUnit],
  ['listVoucherDefinitions', 'explicit business unit', (i) => ok(i) && Boolean(i.request?.query?.businessUnit)],
  ['updateReservation', 'plain lowering', (i) => ok(i) && Object.keys(requestBody(i)).join() === 'reservationAmount' && !body(i)?.household],
  ['updateReservation', 'household return', (i) => ok(i) && Boolean(body(i)?.household)],
  ['updateReservation', 'item-level redemption', (i) => ok(i) && Array.isArray(requestBody(i).catalogueItems) && Array.isArray(body(i)?.catalogueItemsData)],
  ['updateReservation', 'offline creation', (i) => ok(i) && requestBody(i).offline === true],
  ['listVoucherDefinitions', "the partner's page (a publishable key from its origin)", (i) => ok(i) && fromPage(i)],
  ['updateReservation', "the partner's page (a publishable key from its origin)", (i) => ok(i) && fromPage(i)],
  ['endSession', "the partner's server (a secret key, no Origin)", (i) => i.response?.status === 204 && !fromPage(i)],
  ['endSession', "the partner's page (a publishable key from its origin)", (i) => i.response?.status === 204 && fromPage(i)],
  // A HEAD answer has no body to carry the errorCode: its status says it.
  ...operations.map((op) => [
    op.operationId,
    '401 UNAUTHORIZED',
    (i) => i.response?.status === 401 && (op.method === 'HEAD' || body(i)?.errorCode === 'UNAUTHORIZED'),
  ]),
];
for (const [operationId, name, matches] of variants) {
  if (!(byOperation.get(operationId) ?? []).some(matches)) problems.push(`${operationId}: no interaction for the variant "${name}"`);
}

if (problems.length > 0) {
  fail(
    [
      `${rel(committedPact)} does not cover the spec's /client operations:`,
      ...problems.map((p) => `  - ${p}`),
      'Add consumer interactions in contracts/consumer/, then `npm run pact:update`.',
    ].join('\n'),
  );
}
console.log(`${rel(committedPact)} covers every documented status of ${operations.length} operations (${interactions.length} interactions):`);
console.log(table.join('\n'));
console.log('  ...and every Operation A error code, every Operation B message, every 401 message and the required variants.');
