import { stdSerializers } from 'pino';
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { StoreUnavailableError } from '../port';
import { withoutDocumentValues } from './document-values';
import { DatabaseRefusal, isDuplicateKey, refusedWrites, toStoreError, unreachableReason } from './errors';
import { rawSocketErrors, systemError } from '../test-support/raw-errors';

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
    const cause = (mapped as Error).cause;
    // A server's reply leaves the adapter only as a refusal that carries no document value (below).
    if (error instanceof MongoServerError) expect(cause).toMatchObject({ name: 'DatabaseRefusal', code: error.code, message: error.message });
    else expect(cause).toBe(error);
  });

  it.each([
    ['a driver usage error', new MongoInvalidArgumentError('bad option')],
    ['a plain error', new Error('bug')],
    ['a file system error', systemError('ENOENT', 'no such file')],
    ['a non-error', 'string thrown'],
  ])('leaves %s as it is', (_what, error) => {
    expect(toStoreError(error)).toBe(error);
  });
});

describe('a command the server refused, as it leaves the adapter (DatabaseRefusal)', () => {
  const message = 'E11000 duplicate key error collection: loyalty.wallets index: _id_ dup key: { _id: "member:m-bob" }';
  const shown = 'E11000 duplicate key error collection: loyalty.wallets index: _id_ dup key: {…}';
  const reply = { message, errmsg: message, code: 11000, codeName: 'DuplicateKey', keyPattern: { _id: 1 }, keyValue: { _id: 'member:m-bob' }, ok: 0 };
  /** A bulk write's error as the driver builds it: its write errors hold the operations (the documents), its result the ids written. */
  const bulk = () =>
    new MongoBulkWriteError(
      {
        message,
        code: 11000,
        writeErrors: [
          { index: 1, code: 11000, errmsg: message, op: { _id: 'member:m-bob', balances: [{ correlationId: 'm-bob' }] } },
          { index: 3, code: 121, errmsg: 'Document failed validation', errInfo: { details: { reason: 'm-bob' } }, op: { _id: 'x' } },
        ],
      } as never,
      { insertedIds: { 0: 'member:m-bob' } } as never,
    );

  it.each([
    ["a duplicate key (the server's reply, the key's values)", () => new MongoServerError(reply), { driverError: 'MongoServerError', code: 11000, codeName: 'DuplicateKey' }],
    ["a bulk write's (its documents, its result)", bulk, { driverError: 'MongoBulkWriteError', code: 11000, writeErrors: [{ index: 1, code: 11000 }, { index: 3, code: 121 }] }],
  ])("%s: keeps the collection, index, code and code name, none of the values, as pino would log it", (_what, make, fields) => {
    const refusal = toStoreError(make());
    expect(refusal).toBeInstanceOf(DatabaseRefusal);
    expect(refusal).toMatchObject({ name: 'DatabaseRefusal', message: shown, ...fields });
    expect((refusal as Error).stack).toMatch(/^DatabaseRefusal: E11000 duplicate key error collection: loyalty\.wallets index: _id_ dup key: \{…\}\n/);
    const logged = JSON.stringify(stdSerializers.err(refusal as Error));
    expect(logged).not.toMatch(/m-bob|keyValue|errorResponse|balances/);
    expect(isDuplicateKey(refusal)).toBe(true);
  });

  it('keeps what a refusal without values says as it is', () => {
    expect(toStoreError(serverError(2, "unknown operator: $nope"))).toMatchObject({ name: 'DatabaseRefusal', message: 'unknown operator: $nope', code: 2 });
  });

  it("gives a bulk write's refused operations, translated or not; none for another failure", () => {
    expect(refusedWrites(bulk())).toEqual([{ index: 1, code: 11000 }, { index: 3, code: 121 }]);
    expect(refusedWrites(toStoreError(bulk()))).toEqual([{ index: 1, code: 11000 }, { index: 3, code: 121 }]);
    expect(refusedWrites(toStoreError(new MongoServerError(reply)))).toBeNull();
    expect(refusedWrites(new Error('E11000'))).toBeNull();
  });
});

describe('withoutDocumentValues', () => {
  it.each([
    ['a duplicate key', 'E11000 duplicate key error collection: db.c index: _id_ dup key: { _id: "member:m-bob" }', 'E11000 duplicate key error collection: db.c index: _id_ dup key: {…}'],
    ['braces and quotes inside the values', 'dup key: { _id: "a}\\"b{" , x: { y: \'}\' } } and after', 'dup key: {…} and after'],
    ['a document quoted mid-sentence', "Cannot apply $inc to a value of non-numeric type. { _id: \"k\" } has the field 'claimed' of non-numeric type string", "Cannot apply $inc to a value of non-numeric type. {…} has the field 'claimed' of non-numeric type string"],
    ['a brace left open', 'dup key: { _id: "cut', 'dup key: {…}'],
    ['no values', 'Document failed validation', 'Document failed validation'],
  ])('%s', (_what, message, shown) => {
    expect(withoutDocumentValues(message)).toBe(shown);
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
