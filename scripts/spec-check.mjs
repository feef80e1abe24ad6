#!/usr/bin/env node
// Checks the contract: the spec is valid OpenAPI (@readme/openapi-parser),
// passes Redocly's lint and Spectral's (`spectral:oas`) with no warning, and
// its examples make mock answers that match it (scripts/spec-examples.mjs),
// and the committed generated types are exactly what openapi-typescript makes
// of it today. Exits 1 on any finding.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { validate } from '@readme/openapi-parser';
import { lint, loadConfig, formatProblems } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
// CommonJS whose named exports Node's ESM loader cannot see: default import.
import spectralParsers from '@stoplight/spectral-parsers';
import { parse } from 'yaml';
import spectralRuleset from '../openapi/spectral.ruleset.mjs';
import { checkExamples } from './spec-examples.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const specPath = path.join(root, 'openapi/openapi.yaml');
// The types generated from the spec (@loyalty/openapi: the server and the SDK import them): they must be current.
const generatedPaths = ['openapi/schema.d.ts'];
let failed = false;

const parsed = await validate(specPath, { validate: { errors: { colorize: false } } });
if (parsed.valid) {
  console.log('spec:check  openapi-parser: valid');
} else {
  failed = true;
  console.error('spec:check  openapi-parser found errors:');
  for (const error of parsed.errors) console.error(`  - ${error.message}`);
}

const config = await loadConfig({ configPath: path.join(root, 'openapi/redocly.lint.yaml') });
const problems = await lint({ ref: specPath, config });
if (problems.length === 0) {
  console.log('spec:check  redocly lint: no problems');
} else {
  failed = true;
  console.error(`spec:check  redocly lint: ${problems.length} problem(s)`);
  formatProblems(problems, { format: 'codeframe', totals: { errors: 0, warnings: 0, ignored: 0 }, version: '' });
}

const spectral = new Spectral();
spectral.setRuleset(spectralRuleset);
// With the spec's path, so that `$ref`s resolve and findings name the file.
const spectralFindings = await spectral.run(new Document(readFileSync(specPath, 'utf8'), spectralParsers.Yaml, specPath));
if (spectralFindings.length === 0) {
  console.log('spec:check  spectral lint (spectral:oas): no problems');
} else {
  failed = true;
  const severities = ['error', 'warning', 'info', 'hint'];
  console.error(`spec:check  spectral lint (spectral:oas): ${spectralFindings.length} problem(s)`);
  for (const finding of spectralFindings) {
    const where = `${path.relative(root, finding.source ?? specPath)}:${finding.range.start.line + 1}`;
    console.error(`  - ${severities[finding.severity]} ${finding.code} at ${finding.path.join('.') || '$'} (${where}): ${finding.message}`);
  }
}

const examples = await checkExamples(parse(readFileSync(specPath, 'utf8')), specPath);
if (examples.problems.length === 0) {
  console.log(`spec:check  examples: ${examples.count} mock answers made from the spec all match it`);
} else {
  failed = true;
  console.error(`spec:check  examples: ${examples.problems.length} problem(s)`);
  for (const problem of examples.problems) console.error(`  - ${problem}`);
}

// Regenerate into a scratch file and compare bytes (what `--check` does), so the
// failure message can name the fix.
const scratch = path.join(mkdtempSync(path.join(tmpdir(), 'spec-check-')), 'schema.ts');
try {
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), specPath, '-o', scratch],
    { cwd: root, stdio: 'pipe' },
  );
} catch (error) {
  console.error(`spec:check  openapi-typescript failed:\n${error.stderr}`);
  process.exit(1);
}
const fresh = readFileSync(scratch, 'utf8');
for (const generated of generatedPaths) {
  const committed = existsSync(path.join(root, generated)) ? readFileSync(path.join(root, generated), 'utf8') : '';
  if (committed === fresh) {
    console.log(`spec:check  ${generated}: up to date`);
  } else {
    failed = true;
    console.error(`spec:check  ${generated} is stale: the spec changed without \`npm run generate\`.`);
  }
}

process.exit(failed ? 1 : 0);
