import type { SessionToSeal } from '../session-tokens';

/** A household member's session as the session service seals it: what the token tests seal and open. */
export const sessionToSeal: SessionToSeal = {
  clientId: 'partner-app',
  keyId: 'key_0123456789ab',
  correlationId: 'm-alice@example.com',
  identifierType: 'EMAIL',
  issuedAt: new Date('2030-01-01T00:00:00.000Z'),
  expiresAt: new Date('2030-01-01T01:00:00.123Z'),
  walletId: 'household:hh-1',
};
