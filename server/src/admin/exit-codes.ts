/** `loyalty-admin`'s exit codes (docs/operating.md). */
export const exitCodes = {
  /** Done; `check` found nothing wrong. */
  ok: 0,
  /** The command failed: the database is unreachable, a fixture is invalid, `check` found a problem, a migration failed. */
  failed: 1,
  /** Wrong usage: an unknown command or option, a bad value, or no MongoDB configured. */
  usage: 2,
  /** The client or key named does not exist. */
  notFound: 3,
} as const;

/** A failure with the exit code it ends the command with, and a message for the operator. */
export class AdminError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = exitCodes.failed,
    /** The command printed its result already (a `check` that found problems): `--json` prints nothing more. */
    readonly resultPrinted = false,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}
