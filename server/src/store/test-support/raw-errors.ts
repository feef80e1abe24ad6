/*
 * Node's own socket and stream errors, which the MongoDB driver lets through
 * unwrapped in places (see ../errors.ts): what an outage can throw at the adapter.
 */

/** An error as Node's net and stream modules make them: a message and a string code. */
export function systemError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/** The raw socket errors the driver can surface during an outage, as jest table rows. */
export const rawSocketErrors: Array<[string, NodeJS.ErrnoException]> = [
  ['EPIPE on a socket the server ended', systemError('EPIPE', 'This socket has been ended by the other party')],
  ['EPIPE on write', systemError('EPIPE', 'write EPIPE')],
  ['ECONNRESET', systemError('ECONNRESET', 'read ECONNRESET')],
  ['ECONNREFUSED', systemError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:27017')],
  ['ETIMEDOUT', systemError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.5:27017')],
  ['a write after end', systemError('ERR_STREAM_WRITE_AFTER_END', 'write after end')],
  ['a destroyed stream', systemError('ERR_STREAM_DESTROYED', 'Cannot call write after a stream was destroyed')],
  ['a closed socket', systemError('ERR_SOCKET_CLOSED', 'Socket is closed')],
];
