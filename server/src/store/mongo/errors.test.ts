import {
  MongoClientClosedError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { StoreUnavailableError } from '../port';
import { isDuplicateKey, toStoreError, unreachableReason } from './errors';
import { rawSocketErrors, systemError } from './test-support/raw-errors';

/** A server error as the driver builds it from a reply. */
const serverError = (code: number, message = 'server said no'): MongoServerError => new MongoServerError({ message, code, ok: 0 });

/** The driver's own pool-cleared error is not exported; its shape is a network error with this name. */
class PoolClearedLike extends MongoNetworkError {
  override get name(): string {
    return 'MongoPoolClearedError';
  }
}

describe('toStoreError', () => {
  it.each([
    ['a network error', new MongoNetworkError('connection 3 to 10.0.0.5:27017 closed')],
    ['a network timeout', new MongoNetworkTimeoutError('connection timed out')],
    ['a cleared pool', new PoolClearedLike('pool cleared')],
    ['a closed topology', new MongoTopologyClosedError()],
    ['a closed client', new MongoClientClosedError()],
    ['NotWritablePrimary', serverError(10107, 'not primary')],
    ['PrimarySteppedDown', serverError(189)],
    ['ShutdownInProgress', serverError(91)],
    ['InterruptedDueToReplStateChange', serverError(11602)],
    ['NotPrimaryOrSecondary', serverError(13436)],
    ['HostUnreachable', serverError(6)],
    // Node's own errors, as the driver lets some through unwrapped.
    ...rawSocketErrors,
    ['a plain error caused by a reset socket', new Error('write failed', { cause: systemError('ECONNRESET', 'read ECONNRESET') })],
  ])('turns %s into StoreUnavailableError with a generic message', (_what, error) => {
    const mapped = toStoreError(error);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as Error).message).toBe('store unavailable');
    expect((mapped as Error).cause).toBe(error);
  });

  it.each([
    ['a duplicate key', serverError(11000, 'E11000 duplicate key')],
    ['a bad query', serverError(2, 'bad value')],
    ['a driver usage error', new MongoInvalidArgumentError('bad option')],
    ['a plain error', new Error('bug')],
    ['a file system error', systemError('ENOENT', 'no such file')],
    ['a non-error', 'string thrown'],
  ])('leaves %s as it is', (_what, error) => {
    expect(toStoreError(error)).toBe(error);
  });
});

describe('isDuplicateKey', () => {
  it('recognises E11000 only', () => {
    expect(isDuplicateKey(serverError(11000))).toBe(true);
    expect(isDuplicateKey(serverError(11001))).toBe(false);
    expect(isDuplicateKey(new Error('E11000'))).toBe(false);
  });
});

describe('unreachableReason', () => {
  it("gives the driver's message, and each server's own error when it differs", () => {
    const serverError = new Error('connect ECONNREFUSED 10.0.0.5:27017');
    const servers = new Map([['db-1:27017', { error: serverError }], ['db-2:27017', { error: null }]]);
    const selection = new MongoServerSelectionError('Server selection timed out after 500 ms', { servers } as never);
    expect(unreachableReason(selection)).toBe('Server selection timed out after 500 ms; db-1:27017: connect ECONNREFUSED 10.0.0.5:27017');
  });

  it('does not repeat a cause the message already holds', () => {
    const serverError = new Error('getaddrinfo ENOTFOUND db-1');
    const selection = new MongoServerSelectionError('getaddrinfo ENOTFOUND db-1', { servers: new Map([['db-1:27017', { error: serverError }]]) } as never);
    expect(unreachableReason(selection)).toBe('getaddrinfo ENOTFOUND db-1');
  });
});
