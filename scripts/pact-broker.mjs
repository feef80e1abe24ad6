// Publishes the committed pacts to a Pact Broker, or asks it whether a
// version can be deployed. Not part of `npm test`: nothing in this
// repository's test run can reach a broker.
//
//   node scripts/pact-broker.mjs publish
//   node scripts/pact-broker.mjs can-i-deploy loyalty-sdk|loyalty-api
//   node scripts/pact-broker.mjs record-deployment loyalty-sdk|loyalty-api
//
// Environment:
//   PACT_BROKER_BASE_URL                      required
//   PACT_BROKER_TOKEN, or PACT_BROKER_USERNAME and PACT_BROKER_PASSWORD
//   PACT_VERSION      version of the participant (default: GIT_COMMIT, GITHUB_SHA, or `git rev-parse HEAD`)
//   PACT_BRANCH       branch (default: GIT_BRANCH, GITHUB_HEAD_REF, GITHUB_REF_NAME, or the current git branch)
//   PACT_ENVIRONMENT  environment to deploy to (can-i-deploy, record-deployment; default: production)
//
// Needs the `pact-broker` command of @pact-foundation/pact-cli, which is not
// a dependency of this repository: `npm install --save-dev @pact-foundation/pact-cli`,
// or put `pact-broker` on PATH (for example from the pactfoundation/pact-cli image).
import { spawnSync } from 'node:child_process';
import { committedPactDir, consumerName, fail, providerName, repoRoot } from './pact-lib.mjs';
import { participantBranch, participantVersion } from './pact-participant.mjs';

const [command, participantArg] = process.argv.slice(2);
const env = process.env;

if (!env.PACT_BROKER_BASE_URL?.trim()) fail('Set PACT_BROKER_BASE_URL (and PACT_BROKER_TOKEN, or PACT_BROKER_USERNAME and PACT_BROKER_PASSWORD).');
if (!env.PACT_BROKER_TOKEN && !(env.PACT_BROKER_USERNAME && env.PACT_BROKER_PASSWORD)) {
  console.warn('No PACT_BROKER_TOKEN nor PACT_BROKER_USERNAME/PACT_BROKER_PASSWORD: calling the broker without credentials.');
}

const version = participantVersion(env);
const branch = participantBranch(env);
const environment = env.PACT_ENVIRONMENT?.trim() || 'production';

function participant() {
  const name = participantArg ?? consumerName;
  if (name !== consumerName && name !== providerName) fail(`Participant must be ${consumerName} or ${providerName}, got ${name}.`);
  return name;
}

let args;
switch (command) {
  case 'publish':
    // The pacts are the consumer's: its version is the commit that contains them.
    args = ['publish', committedPactDir, '--consumer-app-version', version, '--branch', branch];
    break;
  case 'can-i-deploy':
    // Waits up to two minutes for a verification result still on its way.
    args = [
      'can-i-deploy',
      ...['--pacticipant', participant(), '--version', version, '--to-environment', environment],
      ...['--retry-while-unknown', '12', '--retry-interval', '10'],
    ];
    break;
  case 'record-deployment':
    args = ['record-deployment', '--pacticipant', participant(), '--version', version, '--environment', environment];
    break;
  default:
    fail('Usage: node scripts/pact-broker.mjs publish | can-i-deploy [participant] | record-deployment [participant]');
}

console.log(`pact-broker ${args.join(' ')}`);
// pact-broker reads PACT_BROKER_BASE_URL, PACT_BROKER_TOKEN, PACT_BROKER_USERNAME and PACT_BROKER_PASSWORD itself.
const run = spawnSync('pact-broker', args, { cwd: repoRoot, stdio: 'inherit', env, shell: process.platform === 'win32' });
if (run.error?.code === 'ENOENT') {
  fail('No `pact-broker` command: `npm install --save-dev @pact-foundation/pact-cli`, or put pact-broker on PATH.');
}
process.exit(run.status ?? 1);
