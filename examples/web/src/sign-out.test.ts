import type { EndSessionError } from '@loyalty/sdk';
import { signedOutText, signOutOutcome, type SignOutOutcome } from './sign-out';

describe('signOutOutcome', () => {
  it.each<[string, EndSessionError | undefined, SignOutOutcome]>([
    ['204', undefined, 'ended'],
    // Another tab, the expiry, or an earlier attempt of the same call ended it: the token is no session any more.
    ['401 Invalid or expired session', { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' }, 'already-ended'],
    // The page's key itself was refused: nothing says the session ended.
    ['401 Missing or unknown API key', { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Missing or unknown API key' }, 'not-confirmed'],
    ['403', { statusCode: 403, errorCode: 'FORBIDDEN', errorMessage: 'A publishable key works only from a page on one of its origins' }, 'not-confirmed'],
    ['429', { statusCode: 429, errorCode: 'TOO_MANY_REQUESTS', errorMessage: 'Too many requests' }, 'not-confirmed'],
    ['503', { statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' }, 'not-confirmed'],
    // A server without the route (an API older than sign-out) answers 404 or 405.
    ['405 from an older API', { statusCode: 405, errorCode: 'UNEXPECTED_RESPONSE', errorMessage: 'HTTP 405', body: '' }, 'not-confirmed'],
  ])('%s: %s', (_answer, error, outcome) => {
    expect(signOutOutcome(error)).toBe(outcome);
  });
});

describe('signedOutText', () => {
  it.each<[SignOutOutcome, string]>([
    ['ended', 'Signed out: your loyalty session has ended.'],
    ['already-ended', 'Signed out: your loyalty session had already ended.'],
    ['not-confirmed', 'Signed out on this page. The loyalty program could not confirm the end of your session: it ends by itself on 26 Nov 2026, 21:00.'],
  ])('%s: %s', (outcome, text) => {
    expect(signedOutText(outcome, '26 Nov 2026, 21:00')).toBe(text);
  });
});
