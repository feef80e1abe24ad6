#!/usr/bin/env node
// Shows that the server's code follows the spec through its generated types:
// a copy of the spec with a path and some fields renamed, its types
// generated as `npm run generate` does, must fail the server's type check
// where the route table and the handlers use them. The unchanged spec,
// through the same steps, must pass (so a failure is the renames', not the
// setup's). Exits 1 otherwise. Nothing in the repository is changed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const spec = parse(readFileSync(path.join(root, 'openapi/openapi.yaml'), 'utf8'));

const reservationPath = '/client/users/{correlation_id}/reservations/{reservation_token}';

/** Each rename, and where the server's type check must then fail: a file and a word of the message. */
const renames = [
  {
    what: `path ${reservationPath} -> /client/members/...`,
    apply: (doc) => renameKey(doc.paths, reservationPath, '/client/members/{correlation_id}/reservations/{reservation_token}'),
    file: 'server/src/http/routes.ts',
    says: '/client/users/{correlation_id}/reservations/{reservation_token}',
  },
  {
    what: 'response field Session.sessionToken -> sessionSecret',
    apply: (doc) => renameProperty(doc.components.schemas.Session, 'sessionToken', 'sessionSecret'),
    file: 'server/src/features/sessions/handler.ts',
    says: 'sessionToken',
  },
  {
    what: 'query parameter businessUnit -> business_unit',
    apply: (doc) => void (doc.components.parameters.BusinessUnit.name = 'business_unit'),
    file: 'server/src/features/voucher-definitions/handler.ts',
    says: 'businessUnit',
  },
  {
    what: 'header parameter X-Identifier-Type -> X-Identifier-Kind',
    apply: (doc) => void (doc.components.parameters.IdentifierTypeHeader.name = 'X-Identifier-Kind'),
    file: 'server/src/features/sessions/handler.ts',
    says: 'X-Identifier-Type',
  },
  {
    what: 'body field ReservationUpdateFields.reservationAmount -> pointsToReserve',
    apply: (doc) => renameProperty(doc.components.schemas.ReservationUpdateFields, 'reservationAmount', 'pointsToReserve'),
    file: 'server/src/features/reservations/',
    says: 'reservationAmount',
  },
];

function renameKey(object, from, to) {
  if (!(from in object)) throw new Error(`nothing to rename: ${from}`);
  object[to] = object[from];
  delete object[from];
}

function renameProperty(schema, from, to) {
  renameKey(schema.properties, from, to);
  if (schema.required) schema.required = schema.required.map((name) => (name === from ? to : name));
}

const scratch = mkdtempSync(path.join(tmpdir(), 'spec-types-check-'));
let failed = false;
try {
  const control = typeCheck('unchanged', spec);
  if (control.exitCode !== 0) {
    failed = true;
    console.error(`spec:types  the unchanged spec fails the type check (a setup problem, not a rename):\n${control.output}`);
  } else {
    console.log('spec:types  the unchanged spec, generated and checked the same way: no error');
  }

  // A reader of `npm test` sees TypeScript errors next: each is what this check wants, said so on its line.
  console.log(`spec:types  a copy of the spec with ${renames.length} renames must fail the type check where each is used: the errors below are expected`);
  const renamed = structuredClone(spec);
  for (const rename of renames) rename.apply(renamed);
  const result = typeCheck('renamed', renamed);
  const errors = result.output.split('\n').filter((line) => /error TS\d+/.test(line));
  for (const rename of renames) {
    const found = errors.filter((line) => line.startsWith(rename.file) && line.includes(rename.says));
    if (found.length === 0) {
      failed = true;
      console.error(`spec:types  renamed ${rename.what}: no error in ${rename.file} mentioning ${rename.says}`);
    } else {
      console.log(`spec:types  renamed ${rename.what}: fails the type check, as it must\n    expected: ${found[0]}`);
    }
  }
  if (result.exitCode === 0) failed = true;
  if (!failed) console.log(`spec:types  passed: the unchanged spec checks clean and each of the ${renames.length} renames fails where it is used`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/**
 * Generates the types of `document` with openapi-typescript, then type-checks
 * the server's code (not its tests) with them standing for `@loyalty/openapi`
 * (openapi/schema.d.ts, what `npm run generate` writes).
 */
function typeCheck(name, document) {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'openapi.yaml'), stringify(document));
  execFileSync(process.execPath, [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.yaml', '-o', 'schema.ts'], { cwd: dir, stdio: 'pipe' });
  const tsconfig = {
    extends: path.join(root, 'tsconfig.json'),
    compilerOptions: {
      noEmit: true,
      baseUrl: root,
      paths: { '@loyalty/openapi': [path.join(dir, 'schema.ts')] },
      types: ['node'],
      typeRoots: [path.join(root, 'node_modules/@types')],
    },
    include: [path.join(root, 'server/src')],
    exclude: [path.join(root, 'server/src/**/*.test.ts'), path.join(root, 'server/src/**/test-support/**')],
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  try {
    const output = execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json'), '--pretty', 'false'], {
      cwd: root,
      stdio: 'pipe',
      encoding: 'utf8',
    });
    return { exitCode: 0, output };
  } catch (error) {
    return { exitCode: error.status ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` };
  }
}
