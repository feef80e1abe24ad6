import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { StoreUnavailableError } from '../port';
import { withoutDocumentValues } from './document-values';

/**
 * Server error codes that mean "no usable primary right now" rather than
 * "your request is wrong": the node is down, shutting down, stepping down or
 * not (any more) the primary. Same list the driver uses to reset its view of
 * the topology (mongodb/lib/error.js, SDAM spec), plus the network codes.
 */
const unavailableCodes = new Set<number>([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * Pool errors the driver does not export; matched by name. The pool-cleared
 * ones extend MongoNetworkError today, the name check keeps them covered if
 * that changes. A wait-queue timeout means every connection is stuck.
 */
const unavailableNames = new Set<string>([
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
]);

const unavailableClasses = [
  MongoNetworkError, // includes MongoNetworkTimeoutError and pool-cleared errors
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoClientClosedError,
  MongoServerClosedError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
];

/**
 * Node's own socket and stream errors. The driver passes some through
 * unwrapped: a write to a socket the server has just closed rejects with a
 * raw `EPIPE` ("This socket has been ended by the other party"), and
 * non-driver errors are neither wrapped, retried nor counted against the
 * server (mongodb's connection.ts writeCommand, server.ts handleError).
 */
const unavailableSystemCodes = new Set<string>([
  'EPIPE',
  'ECONNRESET',
  'ECONNABORTED',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ENOTCONN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_STREAM_WRITE_AFTER_END',
  'ERR_STREAM_DESTROYED',
  'ERR_SOCKET_CLOSED',
]);

/** How deep a chain of causes is followed (a cycle must not hang the check). */
const maxCauseDepth = 5;

/** True when the error, or what caused it, says the database cannot be reached, not that the operation is wrong. */
function isUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > maxCauseDepth) return false;
  if (error instanceof MongoError) {
    if (unavailableClasses.some((type) => error instanceof type)) return true;
    if (unavailableNames.has(error.name)) return true;
    if (typeof error.code === 'number' && unavailableCodes.has(error.code)) return true;
  } else {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && unavailableSystemCodes.has(code)) return true;
  }
  return isUnavailable(error.cause, depth + 1);
}

/**
 * A command the database refused, as it leaves the adapter: the driver's
 * class (`driverError`), the server's code and code name, its message
 * without the values it quotes (`withoutDocumentValues`: a duplicate key's
 * are members' ids, wallet ids, digests of keys and tokens), and a bulk
 * write's refused operations by index and code. Never the server's reply,
 * the key's values, the documents written (a bulk write's errors hold them)
 * or the write's result, all of which the driver's error carries and a log
 * line would print: whatever leaves the adapter may be logged.
 */
export class DatabaseRefusal extends Error {
  constructor(
    readonly driverError: string,
    message: string,
    readonly code: number | undefined,
    readonly codeName: string | undefined,
    /** A bulk write's operations that failed: their index in the write, and the server's code; absent for any other command. */
    readonly writeErrors?: ReadonlyArray<{ readonly index: number; readonly code: number }>,
  ) {
    super(message);
    this.name = 'DatabaseRefusal';
  }
}

/** The driver's server error as `DatabaseRefusal`. */
function refusalOf(error: MongoServerError): DatabaseRefusal {
  const code = typeof error.code === 'number' ? error.code : undefined;
  const codeName = typeof error.codeName === 'string' ? error.codeName : undefined;
  const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat().map((e) => ({ index: e.index, code: e.code })) : undefined;
  return new DatabaseRefusal(error.name, withoutDocumentValues(error.message), code, codeName, writeErrors);
}

/**
 * What the adapter throws for what the driver threw. "Database
 * unreachable" becomes `StoreUnavailableError` with a generic message (the
 * driver's message names hosts and must not reach a client; it stays
 * available to logs as `cause`); a command the server refused becomes a
 * `DatabaseRefusal`, which carries no document value (also as such a
 * cause). Everything else is returned as is.
 */
export function toStoreError(error: unknown): unknown {
  const safe = error instanceof MongoServerError ? refusalOf(error) : error;
  return isUnavailable(error) ? new StoreUnavailableError('store unavailable', { cause: safe }) : safe;
}

/**
 * Why the driver could not reach the server, in its own words: the
 * selection error's message and, where the driver kept them, each server's
 * last error (`connect ECONNREFUSED 10.0.0.5:27017`, `getaddrinfo ENOTFOUND
 * db`). For operators (start-up failures, logs), never for clients.
 */
export function unreachableReason(error: unknown): string {
  const reasons = [error instanceof Error ? error.message : String(error)];
  const servers = error instanceof MongoServerSelectionError ? error.reason?.servers : undefined;
  for (const [address, description] of servers ?? []) {
    const message = description.error?.message;
    if (message && !reasons.some((reason) => reason.includes(message))) reasons.push(`${address}: ${message}`);
  }
  return reasons.join('; ');
}

/** E11000: a unique index (or `_id`) already holds this key; the driver's error, or as the adapter let it out. */
export function isDuplicateKey(error: unknown): boolean {
  return (error instanceof MongoServerError || error instanceof DatabaseRefusal) && error.code === 11000;
}

/**
 * The operations of a failed bulk write that the server refused, by index
 * and code (the driver's error, or as the adapter let it out); null for
 * any other failure.
 */
export function refusedWrites(error: unknown): ReadonlyArray<{ readonly index: number; readonly code: number }> | null {
  const refusal = error instanceof MongoServerError ? refusalOf(error) : error;
  return refusal instanceof DatabaseRefusal ? (refusal.writeErrors ?? null) : null;
}
