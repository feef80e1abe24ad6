import { commandLabels } from './command-labels';

describe('commandLabels: the bounded labels of a MongoDB command', () => {
  it.each([
    ['a find of a collection of the store', { commandName: 'find', command: { find: 'wallets' } }, { command: 'find', collection: 'wallets' }],
    ['a getMore names its collection in `collection`', { commandName: 'getMore', command: { getMore: 42, collection: 'reservations' } }, { command: 'getMore', collection: 'reservations' }],
    ['the rate limit count', { commandName: 'findAndModify', command: { findAndModify: 'rateLimits' } }, { command: 'findAndModify', collection: 'rateLimits' }],
    ['a collection of somebody else', { commandName: 'find', command: { find: 'users_of_another_app' } }, { command: 'find', collection: 'other' }],
    ['a command with no collection', { commandName: 'ping', command: { ping: 1 } }, { command: 'ping', collection: 'other' }],
    ['a command nobody listed', { commandName: 'mapReduce', command: { mapReduce: 'wallets' } }, { command: 'other', collection: 'wallets' }],
  ])('%s', (_case, event, labels) => {
    expect(commandLabels(event)).toEqual(labels);
  });
});
