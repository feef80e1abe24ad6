// Fails when a fresh consumer run (scripts/pact-consumer.mjs, written to
// node_modules/.cache/loyalty-pact/pacts/) would change the committed pacts
// in contracts/pacts/. The comparison ignores only what says nothing about
// the contract: the Pact library versions in the metadata and the order of
// interactions.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { committedPactDir, fail, readJson, rel, scratchPactDir } from './pact-lib.mjs';

const fix = 'Run `npm run pact:update` and commit contracts/pacts/ with the change that made it.';

const jsonFiles = (dir) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.json')).sort() : []);
const fresh = jsonFiles(scratchPactDir);
const committed = jsonFiles(committedPactDir);
if (fresh.length === 0) fail(`No fresh pact in ${rel(scratchPactDir)}: run scripts/pact-consumer.mjs first.`);

const problems = [];
for (const name of committed.filter((n) => !fresh.includes(n))) problems.push(`${name}: committed, but a fresh run no longer writes it`);
for (const name of fresh.filter((n) => !committed.includes(n))) problems.push(`${name}: written by a fresh run, but not committed`);

for (const name of fresh.filter((n) => committed.includes(n))) {
  const before = normalise(readJson(path.join(committedPactDir, name)));
  const after = normalise(readJson(path.join(scratchPactDir, name)));
  problems.push(...differences(name, before, after));
}

if (problems.length > 0) {
  fail(['The committed pact is stale: a fresh consumer run changes it.', ...problems.map((p) => `  - ${p}`), fix].join('\n'));
}
console.log(`Committed pacts are up to date (${fresh.map((n) => rel(path.join(committedPactDir, n))).join(', ')}).`);

// ---------------------------------------------------------------------------

function normalise(pact) {
  const { metadata = {}, interactions = [], ...rest } = pact;
  const { 'pact-js': _pactJs, pactRust: _pactRust, ...keptMetadata } = metadata;
  return {
    ...rest,
    metadata: keptMetadata,
    interactions: [...interactions].sort((a, b) => compare(interactionKey(a), interactionKey(b))),
  };
}

function interactionKey(interaction) {
  return `${interaction.description}\u0000${canonical(interaction.providerStates ?? interaction.providerState ?? null)}`;
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON with object keys sorted, so that key order never counts as a change. */
function canonical(value) {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => compare(a, b))) : v,
  );
}

function differences(name, before, after) {
  const found = [];
  const { interactions: oldInteractions, ...oldRest } = before;
  const { interactions: newInteractions, ...newRest } = after;
  if (canonical(oldRest) !== canonical(newRest)) found.push(`${name}: participants or metadata differ`);

  const byKey = (list) => new Map(list.map((i) => [interactionKey(i), i]));
  const oldByKey = byKey(oldInteractions);
  const newByKey = byKey(newInteractions);
  for (const [key, interaction] of oldByKey) {
    if (!newByKey.has(key)) found.push(`removed: "${interaction.description}"${statesOf(interaction)}`);
  }
  for (const [key, interaction] of newByKey) {
    const old = oldByKey.get(key);
    if (!old) found.push(`added: "${interaction.description}"${statesOf(interaction)}`);
    else if (canonical(old) !== canonical(interaction)) {
      found.push(`changed: "${interaction.description}" at ${firstDifference(old, interaction, '$')}`);
    }
  }
  return found;
}

function statesOf(interaction) {
  const states = (interaction.providerStates ?? []).map((s) => s.name);
  return states.length > 0 ? ` (given ${states.join(' and ')})` : '';
}

/** The JSON path of the first difference, for a message a person can act on. */
function firstDifference(a, b, at) {
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      if (canonical(a[key]) !== canonical(b[key])) return firstDifference(a[key], b[key], Array.isArray(a) ? `${at}[${key}]` : `${at}.${key}`);
    }
  }
  const show = (v) => (v === undefined ? '(absent)' : JSON.stringify(v).slice(0, 120));
  return `${at}: committed ${show(a)}, fresh ${show(b)}`;
}
