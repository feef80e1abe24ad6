import { commandLabels } from './command-labels';

describe('commandLabels: the bounded labels of a MongoDB command', () => {
  it.each([
    ['a find of a collection of the store', { commandName: 'find', command: { find: 'wallets' } }, { command: 'find', collection: 'wallets', sweep: false }],
    ['a getMore names its collection in `collection`', { commandName: 'getMore', command: { getMore: 42, collection: 'reservations' } }, { command: 'getMore', collection: 'reservations', sweep: false }],
    ['the rate limit count', { commandName: 'findAndModify', command: { findAndModify: 'rateLimits' } }, { command: 'findAndModify', collection: 'rateLimits', sweep: false }],
    ['a collection of somebody else', { commandName: 'find', command: { find: 'users_of_another_app' } }, { command: 'find', collection: 'other', sweep: false }],
    ['a command with no collection', { commandName: 'ping', command: { ping: 1 } }, { command: 'ping', collection: 'other', sweep: false }],
    ['a command nobody listed', { commandName: 'mapReduce', command: { mapReduce: 'wallets' } }, { command: 'other', collection: 'wallets', sweep: false }],
    ["the sweep's read, by its comment", { commandName: 'aggregate', command: { aggregate: 'wallets', comment: 'outbox sweep' } }, { command: 'aggregate', collection: 'wallets', sweep: true }],
    ["the sweep's getMore carries its comment too", { commandName: 'getMore', command: { getMore: 42, collection: 'wallets', comment: 'outbox sweep' } }, { command: 'getMore', collection: 'wallets', sweep: true }],
    ["a delivery's write sent by the sweep", { commandName: 'insert', command: { insert: 'audit', comment: 'outbox sweep' } }, { command: 'insert', collection: 'audit', sweep: true }],
    ["a request's write: no comment", { commandName: 'update', command: { update: 'wallets' } }, { command: 'update', collection: 'wallets', sweep: false }],
    ['any other comment', { commandName: 'find', command: { find: 'wallets', comment: 'outbox sweep!' } }, { command: 'find', collection: 'wallets', sweep: false }],
    ['a comment that is not a string', { commandName: 'find', command: { find: 'wallets', comment: { by: 'outbox sweep' } } }, { command: 'find', collection: 'wallets', sweep: false }],
  ])('%s', (_case, event, labels) => {
    expect(commandLabels(event)).toEqual(labels);
  });
});
