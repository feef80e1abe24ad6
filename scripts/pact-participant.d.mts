/** See pact-participant.mjs. */
export function participantVersion(env?: NodeJS.ProcessEnv): string;
export function participantBranch(env?: NodeJS.ProcessEnv): string;
