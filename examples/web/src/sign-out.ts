import type { EndSessionError } from '@loyalty/sdk';

/**
 * What a sign-out came to, by the API's answer to `endSession`. The page
 * forgets the session token whatever it is: the member asked to sign out.
 */
export type SignOutOutcome =
  /** `204`: the session has ended; its token is refused from now on. */
  | 'ended'
  /**
   * `401 Invalid or expired session`: the token was no session any more. It
   * ended before (in another tab, at its expiry, or by an earlier attempt of
   * this very call whose answer was lost): signed out all the same.
   */
  | 'already-ended'
  /** Any other answer, or none: the session may still be live, until its expiry. */
  | 'not-confirmed';

/** The outcome of an `endSession` that got an answer: its `error`, undefined on `204`. */
export function signOutOutcome(error: EndSessionError | undefined): SignOutOutcome {
  if (error === undefined) return 'ended';
  if (error.errorCode === 'UNAUTHORIZED' && error.errorMessage === 'Invalid or expired session') return 'already-ended';
  return 'not-confirmed';
}

/** What the member reads once signed out. `until`: the session's expiry, as the member reads times. */
export function signedOutText(outcome: SignOutOutcome, until: string): string {
  switch (outcome) {
    case 'ended':
      return 'Signed out: your loyalty session has ended.';
    case 'already-ended':
      return 'Signed out: your loyalty session had already ended.';
    case 'not-confirmed':
      return `Signed out on this page. The loyalty program could not confirm the end of your session: it ends by itself on ${until}.`;
  }
}
