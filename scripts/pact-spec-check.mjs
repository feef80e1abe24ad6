// Checks every interaction of the committed pact against openapi/openapi.yaml
// with @pactflow/swagger-mock-validator, so the SDK cannot rely on anything
// the spec does not promise: paths, methods, statuses, parameters, request
// and response bodies (undocumented response fields are errors), headers.
//
// Every error and every warning fails the check, except the findings listed
// in `expected` below, each with its reason. Before trusting a pass, the
// script makes sure the validator does fail a pact that breaks the spec.
//
// Note: the validator's postinstall (patch-package for its ajv copy) does
// not run under npm 11. The patch only changes how whitespace-only strings
// are coerced to numbers in query and header parameters; this spec has no
// numeric request parameter, so the check is unaffected.
//
//   node scripts/pact-spec-check.mjs [pact.json ...]   (default: contracts/pacts/*.json)
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SwaggerMockValidatorFactory } from '@pactflow/swagger-mock-validator';
import { committedPactDir, fail, readJson, rel, scratchDir, specPath } from './pact-lib.mjs';

/**
 * Findings that are part of the contract, not mistakes. Each says why.
 * `status` is the interaction's response status.
 */
const expected = [
  {
    code: 'request.content-type.incompatible',
    applies: (_finding, status) => status === 415,
    reason: 'the 415 interaction sends a body that is not JSON on purpose; the spec documents 415 for exactly that',
  },
];

const pactFiles = process.argv.slice(2).length > 0
  ? process.argv.slice(2).map((file) => path.resolve(file))
  : readdirSync(committedPactDir).filter((n) => n.endsWith('.json')).map((n) => path.join(committedPactDir, n));
if (pactFiles.length === 0) fail(`No pact to check in ${rel(committedPactDir)}.`);

const validator = SwaggerMockValidatorFactory.create();
const validate = (mockPathOrUrl) => validator.validate({ specPathOrUrl: specPath, mockPathOrUrl });

await selfTest(pactFiles[0]);

let failed = false;
for (const file of pactFiles) {
  const pact = readJson(file);
  const outcome = await validate(file);
  const findings = [...outcome.errors, ...outcome.warnings];
  const unexpected = [];
  const accepted = new Map();
  for (const finding of findings) {
    const status = statusOf(pact, finding);
    const rule = expected.find((e) => e.code === finding.code && e.applies(finding, status));
    if (rule) accepted.set(rule, (accepted.get(rule) ?? 0) + 1);
    else unexpected.push(finding);
  }

  const count = pact.interactions?.length ?? 0;
  if (unexpected.length > 0) {
    failed = true;
    console.error(`\n${rel(file)} does not match ${rel(specPath)}: ${unexpected.length} finding(s).`);
    for (const finding of unexpected) {
      console.error(`  - ${finding.type} ${finding.code}: ${finding.message}`);
      console.error(`      interaction: "${finding.mockDetails?.interactionDescription}" at ${finding.mockDetails?.location}`);
      if (finding.specDetails?.location) console.error(`      spec: ${finding.specDetails.location}`);
    }
  } else {
    console.log(`${rel(file)}: all ${count} interactions match ${rel(specPath)}.`);
  }
  for (const [rule, times] of accepted) console.log(`  accepted ${rule.code} x${times}: ${rule.reason}`);
}
if (failed) fail('Pact against the spec: FAILED. Change the consumer tests (or, if the spec is wrong, the spec first).');

// ---------------------------------------------------------------------------

/** The response status of the interaction a finding points at (`[root].interactions[3]...`). */
function statusOf(pact, finding) {
  const index = /\[root\]\.interactions\[(\d+)\]/.exec(finding.mockDetails?.location ?? '')?.[1];
  return index === undefined ? undefined : pact.interactions?.[Number(index)]?.response?.status;
}

/**
 * A check that cannot fail proves nothing: give the validator a copy of the
 * pact with an undocumented response field, an undocumented status and an
 * error code outside the spec's enum, and insist that it reports them.
 */
async function selfTest(file) {
  const pact = readJson(file);
  const success = pact.interactions.find((i) => i.response?.status === 200 && i.response.body?.content && !Array.isArray(i.response.body.content));
  const error = pact.interactions.find((i) => i.response?.status === 401 && i.response.body?.content);
  if (!success || !error) fail('Self-test: the pact has no 200 interaction with an object body or no 401 interaction to corrupt.');
  success.response.body.content.undocumentedField = 'the spec does not promise this';
  error.response.body.content.errorCode = 'NOT_A_DOCUMENTED_CODE';
  const teapot = structuredClone(error);
  teapot.description = `${teapot.description} (self-test copy)`;
  teapot.response.status = 418;
  pact.interactions.push(teapot);

  mkdirSync(scratchDir, { recursive: true });
  const corrupted = path.join(scratchDir, 'spec-check-self-test.json');
  writeFileSync(corrupted, JSON.stringify(pact));
  const outcome = await validate(corrupted);
  const codes = new Set(outcome.errors.map((e) => e.code));
  const missing = ['response.body.incompatible', 'response.status.unknown'].filter((code) => !codes.has(code));
  const bodyError = (pattern) =>
    outcome.errors.some((e) => e.code === 'response.body.incompatible' && pattern.test(`${e.message} ${e.mockDetails?.location}`));
  if (!bodyError(/errorCode|allowed values/)) missing.push('an errorCode outside the enum');
  if (!bodyError(/undocumentedField|additional propert/)) missing.push('an undocumented response field');
  if (missing.length > 0) {
    fail(
      `Self-test failed: the validator did not report a pact that breaks the spec (not reported: ${missing.join(', ')}). ` +
        'Has @pactflow/swagger-mock-validator changed? The spec check cannot be trusted until this passes.',
    );
  }
}
