// The version and branch a participant is known by at the Pact Broker: one
// definition for the broker script (publish, can-i-deploy) and the provider
// verification (which publishes its results), so that both name the same
// version.
import { execFileSync } from 'node:child_process';
import { repoRoot } from './pact-lib.mjs';

const git = (...args) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

/** PACT_VERSION, else the commit: GIT_COMMIT, GITHUB_SHA, or `git rev-parse HEAD`. */
export function participantVersion(env = process.env) {
  return env.PACT_VERSION?.trim() || env.GIT_COMMIT?.trim() || env.GITHUB_SHA?.trim() || git('rev-parse', 'HEAD');
}

/** PACT_BRANCH, else GIT_BRANCH, GITHUB_HEAD_REF, GITHUB_REF_NAME, or the current git branch. */
export function participantBranch(env = process.env) {
  return (
    env.PACT_BRANCH?.trim() ||
    env.GIT_BRANCH?.trim() ||
    env.GITHUB_HEAD_REF?.trim() ||
    env.GITHUB_REF_NAME?.trim() ||
    git('rev-parse', '--abbrev-ref', 'HEAD')
  );
}
