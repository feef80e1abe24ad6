import { createLoyaltyClient, isLoyaltyRequestError } from '@loyalty/sdk';

/** Says what went wrong; the program then ends with exit code 1. */
function fail(message: string): void {
  console.error(message);
  process.exitCode = 1;
}

const apiKey = process.env.LOYALTY_API_KEY;
if (!apiKey) throw new Error('Set LOYALTY_API_KEY to your client application key');

// One client per application: it holds the API key, not a member session.
const loyalty = createLoyaltyClient({
  baseUrl: process.env.LOYALTY_BASE_URL ?? 'http://localhost:3000',
  apiKey,
  userAgent: 'coffee-kiosk/1.0.0',
});

async function main(): Promise<void> {
  const correlationId = 'm-alice';

  // 1. Start a member session. Sessions are per member: keep the token with the member.
  const session = await loyalty.startSession({ correlationId, identifierType: 'CARD_NUMBER' });
  if (session.error) {
    return fail(`No session: ${session.error.errorCode} ${session.error.errorMessage} (request ${session.requestId})`);
  }
  const { sessionToken } = session.data;

  // 2. List the voucher definitions of the member channel.
  const vouchers = await loyalty.listVoucherDefinitions({ correlationId, sessionToken });
  if (vouchers.error) {
    switch (vouchers.error.errorCode) {
      case 'UNAUTHORIZED':
        return fail(`Start a new session: ${vouchers.error.errorMessage}`);
      case 'BUSINESS_UNIT_REQUIRED':
      case 'INVALID_BUSINESS_UNIT':
        return fail('Pass a businessUnit enabled for this application');
      default:
        return fail(`Vouchers failed: ${vouchers.error.errorCode} (request ${vouchers.requestId})`);
    }
  }
  for (const voucher of vouchers.data) {
    const text = voucher.creative['en-CA']?.shortDescription1 ?? voucher.definitionName;
    console.log(`${voucher.voucherDefinitionId}: ${text} (${voucher.pointValue ?? 'no'} points)`);
  }

  // 3. Lower a reservation to 7,500 points; the difference goes back to the member.
  const updated = await loyalty.updateReservation({
    correlationId,
    sessionToken,
    reservationToken: 'rt-alice-1',
    body: { reservationAmount: 7500 },
  });
  if (updated.error) {
    if (updated.error.errorCode !== 'INVALID_REQUEST') {
      return fail(`Update failed: HTTP ${updated.response.status} ${updated.error.errorCode} (request ${updated.requestId})`);
    }
    // Narrowed on errorCode, errorMessage is the union of the documented messages.
    switch (updated.error.errorMessage) {
      case 'New reservation amount cannot be greater than existing reservation amount':
        return fail('A reservation can only go down');
      case 'Reservation Token is invalid':
        return fail('No such reservation (or it expired)');
      default:
        return fail(`Rejected: ${updated.error.errorMessage}`);
    }
  }
  const { reservationToken, reservationDuration, availablePointBalance } = updated.data;
  console.log(`Reservation ${reservationToken} holds for ${reservationDuration} s; ${availablePointBalance} points available`);

  // 4. The member signs out: end the session, so that its token is refused from now on.
  const ended = await loyalty.endSession({ correlationId, sessionToken });
  // 401 `Invalid or expired session`: it had ended already (elsewhere, or at its expiry). Signed out all the same.
  const endedBefore = ended.error?.errorCode === 'UNAUTHORIZED' && ended.error.errorMessage === 'Invalid or expired session';
  if (ended.error && !endedBefore) {
    return fail(`Sign-out not confirmed: ${ended.error.errorCode} (request ${ended.requestId}); the session ends at its expiry`);
  }
  console.log('Signed out');
}

main().catch((error: unknown) => {
  // Calls reject only when no answer came from the API: timeout, network, abort.
  if (isLoyaltyRequestError(error)) {
    fail(`No answer from the loyalty API: ${error.reason} after ${error.attempts} attempt(s), request ${error.requestId}`);
  } else {
    console.error(error);
    process.exitCode = 1;
  }
});
