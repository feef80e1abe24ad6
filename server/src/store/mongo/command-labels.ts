import type { CommandStartedEvent } from 'mongodb';
import { collectionNames } from './collections';
import { sweepComment } from './wallets/outbox-sweep';

/** Command names counted under their own name; any other is `other`. */
const knownCommands = new Set([
  'find', 'aggregate', 'getMore', 'killCursors', 'count', 'distinct',
  'insert', 'update', 'delete', 'findAndModify', 'bulkWrite',
  'createIndexes', 'listIndexes', 'listCollections', 'create', 'drop', 'dropDatabase', 'collMod',
  'commitTransaction', 'abortTransaction', 'endSessions', 'ping', 'hello', 'buildInfo',
]);

/** The project's collections, counted under their own name; any other (or none: `ping`) is `other`. */
const knownCollections = new Set<string>(Object.values(collectionNames));

export interface CommandLabels {
  command: string;
  collection: string;
  /** Whether the outbox sweep sent it (its `comment`): counted in loyalty_outbox_sweep_commands_total too. */
  sweep: boolean;
}

/**
 * The labels a command a MongoDB client sent is counted under
 * (loyalty_mongodb_commands_total): its name and the collection it names,
 * each from a fixed set, so that the metric's series stay bounded; and
 * whether it is the outbox sweep's, which marks each of its commands with
 * its comment (wallets/outbox-sweep.ts).
 */
export function commandLabels(event: Pick<CommandStartedEvent, 'commandName' | 'command'>): CommandLabels {
  const { commandName, command } = event;
  // The collection is the first field's value (`{ find: 'members' }`), or `collection` for `getMore`.
  const collection: unknown = commandName === 'getMore' ? command.collection : command[commandName];
  return {
    command: knownCommands.has(commandName) ? commandName : 'other',
    collection: typeof collection === 'string' && knownCollections.has(collection) ? collection : 'other',
    sweep: command.comment === sweepComment,
  };
}
