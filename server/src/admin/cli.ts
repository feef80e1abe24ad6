#!/usr/bin/env node
/**
 * `loyalty-admin`: the operator's command for a deployment on MongoDB (keys,
 * data loads, indexes, checks, migrations, sharding). Reads MONGODB_URI and
 * MONGODB_DB like the server. `--help` on every command; `--json` prints one
 * JSON object on stdout; exit codes in exit-codes.ts (docs/operating.md).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { originProblem } from '../domain/origins';
import { StoreUnavailableError } from '../store/port';
import { LayoutMismatchError } from '../store/mongo/layout';
import { adminConfig, optionalMongo } from './database';
import { runShard } from './shard';
import { runCheck, runIndexes, runLoad, runMigrate } from './data';
import { AdminError, exitCodes } from './exit-codes';
import { keyCommands, runKeys } from './keys';
import { runLogHash } from './log-hash';
import { runSessionKeysList, runSessionKeysRoll } from './session-keys';
import { createOutput, type Streams } from './output';

/** Seconds as a command line gives them: a whole number from 1 to ten years. */
function seconds(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < 1 || parsed > 315_360_000) throw new InvalidArgumentError('a whole number of seconds, 1 to 315360000');
  return parsed;
}

/** One origin as browsers send it (`https://app.example.com`); repeated, they add up. */
function origin(value: string, previous: string[] = []): string[] {
  const problem = originProblem(value);
  if (problem) throw new InvalidArgumentError(`an exact origin such as https://app.example.com: ${problem}`);
  return [...previous, value];
}

const jsonOption = () => new Option('--json', 'print one JSON object on stdout (for scripts)');

export function buildProgram(env: NodeJS.ProcessEnv, streams: Streams): Command {
  const program = new Command('loyalty-admin')
    .description('Operate the loyalty API on its MongoDB (MONGODB_URI, MONGODB_DB): API keys, data loads, indexes, checks, migrations.')
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => streams.stdout.write(text), writeErr: (text) => streams.stderr.write(text) })
    .exitOverride();
  const config = () => adminConfig(env);
  const output = (options: { json?: boolean }) => createOutput(options.json === true, streams);

  const keys = program.command('keys').description("a client's API keys: any live one authenticates it").exitOverride();
  keys
    .command('create')
    .description("make a new key (shown once): secret (lsk_...), for the partner's servers, unless --publishable (lpk_...)")
    .requiredOption('--client <id>', 'the client application')
    .option('--expires-in <seconds>', 'the key stops working after this long', seconds)
    .option('--publishable', "a publishable key, for the partner's web pages on the --origin(s): it starts no session")
    .option('--origin <origin>', 'an exact origin whose pages may send the publishable key (repeat for more)', origin)
    .addOption(jsonOption())
    .action((o: { client: string; expiresIn?: number; publishable?: boolean; origin?: string[]; json?: boolean }) => {
      if ((o.publishable === true) !== (o.origin !== undefined)) throw new AdminError('--publishable and --origin go together: a publishable key needs its origins, a secret key has none', exitCodes.usage);
      const options = { ...(o.expiresIn !== undefined && { expiresInSeconds: o.expiresIn }), ...(o.publishable && { publishable: true, origins: o.origin ?? [] }) };
      return runKeys(config().mongo, output(o), keyCommands.create(o.client, options));
    });
  keys
    .command('roll')
    .description("make a new key and give the keys it replaces an expiry (the grace): the client's live secret keys, or with --key that one key (a publishable key keeps its origins)")
    .requiredOption('--client <id>', 'the client application')
    .option('--key <keyId>', 'roll this key only, of either kind (keys list)')
    .option('--grace <seconds>', 'how long the replaced keys keep working (default 86400)', seconds)
    .addOption(jsonOption())
    .action((o: { client: string; key?: string; grace?: number; json?: boolean }) =>
      runKeys(config().mongo, output(o), keyCommands.roll(o.client, { ...(o.grace !== undefined && { graceSeconds: o.grace }), ...(o.key !== undefined && { keyId: o.key }) })),
    );
  keys
    .command('revoke')
    .description('end a key now, and the sessions it started')
    .requiredOption('--client <id>', 'the client application')
    .requiredOption('--key <keyId>', 'the public id of the key (keys list)')
    .addOption(jsonOption())
    .action((o: { client: string; key: string; json?: boolean }) => runKeys(config().mongo, output(o), keyCommands.revoke(o.client, o.key)));
  keys
    .command('list')
    .description("a client's keys: ids, kinds, origins, creation, expiry, revocation (never a secret)")
    .requiredOption('--client <id>', 'the client application')
    .addOption(jsonOption())
    .action((o: { client: string; json?: boolean }) => runKeys(config().mongo, output(o), keyCommands.list(o.client)));

  const sessionKeys = program.command('session-keys').description('the keys that seal session tokens, shared by every server process').exitOverride();
  sessionKeys
    .command('roll')
    .description('add a key that seals new session tokens 5 s from now; the others still open theirs for a day after (the first roll switches a deployed fleet to sealed tokens)')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) => runSessionKeysRoll(config().mongo, output(o)));
  sessionKeys
    .command('list')
    .description('the session keys that seal or still open tokens, and when (never a secret)')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) => runSessionKeysList(config().mongo, output(o)));

  program
    .command('load')
    .description('load a fixture file into the database (checked whole first; safe next to a running fleet)')
    .argument('<file>', 'fixture JSON (the SEED_FILE format)')
    .addOption(jsonOption())
    .action((file: string, o: { json?: boolean }) => runLoad(config(), file, output(o)));
  program
    .command('indexes')
    .description("create the current data layout's indexes (idempotent), or only verify them")
    .option('--verify', 'create nothing; fail when one is missing')
    .addOption(jsonOption())
    .action((o: { verify?: boolean; json?: boolean }) => runIndexes(config().mongo, o.verify === true, output(o)));
  program
    .command('check')
    .description('reachable, data layout, indexes, counts per collection; exits 1 when something is wrong')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) => runCheck(config().mongo, output(o)));
  program
    .command('shard')
    .description('print the shard plan of a sharded cluster (collections, shard keys, unique indexes); --apply runs it on a mongos')
    .option('--apply', 'enable sharding, create the shard-key indexes and shard the collections (idempotent; a mongos only)')
    .addOption(jsonOption())
    .action((o: { apply?: boolean; json?: boolean }) => runShard(o.apply ? config().mongo : optionalMongo(env), o.apply === true, output(o)));
  program
    .command('log-hash')
    .description("the hash that stands for a member in the servers' logs and spans (LOG_MEMBER_IDS=hashed): search the logs for it")
    .argument('<correlation-id>', "the member's id, as in the API's paths")
    .addOption(jsonOption())
    .action((correlationId: string, o: { json?: boolean }) => runLogHash(config().mongo, correlationId, output(o)));
  program
    .command('migrate')
    .description('bring the database to the data layout of this release, in place (idempotent, resumable)')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) => runMigrate(config().mongo, output(o)));
  return program;
}

/** Runs one command line; resolves with the exit code. Errors are one line on stderr (and one JSON object with --json). */
export async function runAdmin(argv: string[], env: NodeJS.ProcessEnv = process.env, streams: Streams = process): Promise<number> {
  const program = buildProgram(env, streams);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    }
    const { message, exitCode } = describeFailure(error);
    streams.stderr.write(`loyalty-admin: ${message}\n`);
    const printed = error instanceof AdminError && error.resultPrinted;
    if (argv.includes('--json') && !printed) streams.stdout.write(`${JSON.stringify({ error: message, exitCode })}\n`);
    return exitCode;
  }
}

function describeFailure(error: unknown): { message: string; exitCode: number } {
  if (error instanceof AdminError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof LayoutMismatchError) return { message: error.message, exitCode: exitCodes.failed };
  if (error instanceof StoreUnavailableError) return { message: `MongoDB unreachable: ${error.message}`, exitCode: exitCodes.failed };
  return { message: error instanceof Error ? error.message : String(error), exitCode: exitCodes.failed };
}

if (require.main === module) {
  void runAdmin(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
