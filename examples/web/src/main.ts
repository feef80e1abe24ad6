import {
  createLoyaltyClient,
  isLoyaltyRequestError,
  SDK_VERSION,
  type LoyaltyClient,
  type ReservationUpdateResponse,
  type VoucherDefinitionSummary,
} from '@loyalty/sdk';
import { loadExampleConfig, signIn, type DemoMember, type ExampleConfig, type SignedIn } from './config';
import { byId, el, facts } from './dom';
import { chooseCreative, fallbackLocale } from './locale';
import { signedOutText, signOutOutcome, type SignOutOutcome } from './sign-out';
import { answerRecord, memberMessage, noAnswerRecord, supportText, type CallError, type SupportRecord } from './support';

/** Set by the build (build.mjs): the SDK's size in a page. */
declare const __SDK_SIZE__: { minifiedBytes: number; gzipBytes: number };

const preferredLocales: readonly string[] = navigator.languages.length > 0 ? navigator.languages : [navigator.language];
const numbers = new Intl.NumberFormat(preferredLocales[0] ?? fallbackLocale);
const times = new Intl.DateTimeFormat(preferredLocales[0] ?? fallbackLocale, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * The member signed in on this page and their session: the page's one hold
 * on the session token, in memory only, dropped at sign-out.
 */
interface SignedInMember {
  member: DemoMember;
  session: SignedIn;
}
type Held = { current: SignedInMember | null };

type CallResult<T> = { data?: T; error?: CallError; response: Response; requestId: string };

/**
 * Runs one SDK call. Success gives its data and request id; an error answer
 * or no answer at all is shown in the support log, and gives null.
 */
async function run<T>(call: string, send: () => Promise<CallResult<T>>): Promise<{ data: T; requestId: string } | null> {
  try {
    const result = await send();
    if (result.error !== undefined || result.data === undefined) {
      const error = result.error ?? unexpected(result.response);
      showError(memberMessage(error), answerRecord(call, error, result.response, result.requestId, new Date()));
      return null;
    }
    return { data: result.data, requestId: result.requestId };
  } catch (error) {
    if (!isLoyaltyRequestError(error)) throw error;
    showError('The loyalty program cannot be reached: check your connection and try again.', noAnswerRecord(call, error, new Date()));
    return null;
  }
}

/** A 2xx without a body where one was due: never sent by the API, shown as the SDK's UNEXPECTED_RESPONSE. */
function unexpected(response: Response): CallError {
  return { statusCode: response.status, errorCode: 'UNEXPECTED_RESPONSE', errorMessage: `HTTP ${response.status} without a body`, body: '' };
}

function showError(headline: string, record: SupportRecord): void {
  const copy = el('button', { type: 'button', class: 'copy' }, 'Copy for support');
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(supportText(record)).then(() => (copy.textContent = 'Copied'));
  });
  const rows: Array<[string, Node | string]> = [
    ['Request id', el('span', {}, el('code', { class: 'request-id' }, record.requestId), ' ', copy)],
    ['When (UTC)', record.at],
    ['Call', record.call],
    ['Answer', record.outcome],
    ['Message', record.message],
    ...record.details.map((detail): [string, string] => ['Detail', detail]),
  ];
  const card = el('article', { class: 'error', 'data-request-id': record.requestId, 'data-outcome': record.outcome }, el('h3', {}, headline), facts(rows));
  byId('support-log').prepend(card);
}

function requestIdNote(requestId: string): HTMLElement {
  return el('p', { class: 'request-note' }, 'Request id ', el('code', { class: 'request-id' }, requestId));
}

function voucherCard(voucher: VoucherDefinitionSummary): HTMLElement {
  const chosen = chooseCreative(voucher.creative, preferredLocales);
  const text = chosen?.creative.shortDescription1 ?? voucher.definitionName;
  const lang = chosen?.locale ?? fallbackLocale;
  const placeholder = el('div', { class: 'placeholder', 'aria-hidden': 'true' }, text.slice(0, 3));
  const image = chosen?.creative.smallImageURI ? el('img', { src: chosen.creative.smallImageURI, alt: '', width: '56', height: '56' }) : placeholder;
  // A creative's image on an unreachable CDN must not leave a broken icon.
  if (image instanceof HTMLImageElement) image.addEventListener('error', () => image.replaceWith(placeholder), { once: true });
  const points = voucher.pointValue === null ? 'no points value' : `${numbers.format(voucher.pointValue)} points`;
  return el(
    'li',
    { class: 'voucher', 'data-voucher-id': voucher.voucherDefinitionId, 'data-locale': lang },
    image,
    el('div', {}, el('p', { class: 'voucher-text', lang }, text), el('p', { class: 'muted' }, `${voucher.definitionName} · ${points}`)),
  );
}

function showBalances(update: ReservationUpdateResponse, amount: number, requestId: string): void {
  const rows: Array<[string, string]> = [
    ['Reservation', `${update.reservationToken}: ${numbers.format(amount)} points, for ${Math.round(update.reservationDuration / 60)} more minutes`],
    ['Available points', numbers.format(update.availablePointBalance)],
    ['Points balance', numbers.format(update.pointBalance)],
  ];
  if (update.household) {
    rows.push(['Household available', numbers.format(update.household.availablePointsBalance)], ['Household balance', numbers.format(update.household.pointsBalance)]);
  }
  const list = facts(rows);
  list.id = 'balances';
  list.dataset.available = String(update.availablePointBalance);
  list.dataset.balance = String(update.pointBalance);
  byId('reservation-result').replaceChildren(list, requestIdNote(requestId));
}

/**
 * The demo sign-in: the member picks who they are, the partner's server
 * signs them in and starts their loyalty session with its secret key. The
 * page gets the session token, never a key that could start one.
 */
function offerSignIn(config: ExampleConfig, signedIn: (member: DemoMember, session: SignedIn) => Promise<void>): void {
  const picker = byId('member') as HTMLSelectElement;
  picker.replaceChildren(...config.members.map((member) => el('option', { value: member.correlationId }, `${member.name} (${member.correlationId})`)));
  const button = byId('sign-in') as HTMLButtonElement;
  button.disabled = false;
  const submit = async (): Promise<void> => {
    const member = config.members.find((candidate) => candidate.correlationId === picker.value);
    if (!member) return;
    button.disabled = true;
    picker.disabled = true;
    let session: SignedIn;
    try {
      session = await signIn(member.correlationId);
    } catch (error) {
      button.disabled = false;
      picker.disabled = false;
      byId('session-result').replaceChildren(el('p', { class: 'error', id: 'sign-in-failed' }, `Sign-in failed: ${String((error as Error).message ?? error)}`));
      return;
    }
    byId('sign-in-form').hidden = true;
    byId('session-result').replaceChildren(
      el('p', { id: 'signed-in' }, `Signed in as ${member.name} (${session.correlationId}): the partner's server started the session.`),
      requestIdNote(session.requestId),
    );
    await signedIn(member, session);
    button.disabled = false;
    picker.disabled = false;
  };
  byId('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
}

/** The member's journey, in the session the partner's server started: the vouchers, a lowered reservation. */
async function journey(loyalty: LoyaltyClient, member: DemoMember, sessionToken: string): Promise<void> {
  const { correlationId } = member;
  const vouchers = await run('listVoucherDefinitions', () => loyalty.listVoucherDefinitions({ correlationId, sessionToken }));
  if (vouchers) {
    const list = el('ul', { id: 'voucher-list' }, ...vouchers.data.map(voucherCard));
    const localeNote = el('p', { class: 'muted' }, `Your browser prefers ${preferredLocales.join(', ')}; texts fall back to ${fallbackLocale}.`);
    byId('vouchers-result').replaceChildren(localeNote, list, requestIdNote(vouchers.requestId));
  }

  const { reservationToken, reservationAmount } = member;
  const updated = await run('updateReservation', () =>
    loyalty.updateReservation({ correlationId, sessionToken, reservationToken, body: { reservationAmount } }),
  );
  if (updated) showBalances(updated.data, reservationAmount, updated.requestId);
}

/** Buttons that make the API answer each kind of error, to show what support gets: usable while a member is signed in. */
function offerErrors(loyalty: LoyaltyClient, config: ExampleConfig, held: Held): void {
  const unreachable = createLoyaltyClient({ baseUrl: config.unreachableBaseUrl, apiKey: config.publishableKey, timeoutMs: 3000, retries: 1 });
  const tries: Record<string, (signedIn: SignedInMember) => Promise<unknown>> = {
    'try-raise': ({ member, session }) =>
      run('updateReservation', () =>
        loyalty.updateReservation({
          correlationId: member.correlationId,
          sessionToken: session.sessionToken,
          reservationToken: member.reservationToken,
          body: { reservationAmount: member.reservationAmount + 100_000 },
        }),
      ),
    // What a page's script would do if it tried to act for any member it likes: the publishable key starts no session.
    'try-page-session': () => run('startSession', () => loyalty.startSession({ correlationId: 'm-hh-2', identifierType: 'CARD_NUMBER' })),
    'try-expired-session': ({ member }) =>
      run('listVoucherDefinitions', () => loyalty.listVoucherDefinitions({ correlationId: member.correlationId, sessionToken: 'st_expired_0123456789abcdefgh' })),
    'try-business-unit': ({ member, session }) =>
      run('listVoucherDefinitions', () => loyalty.listVoucherDefinitions({ correlationId: member.correlationId, sessionToken: session.sessionToken, businessUnit: 'NOPE' })),
    'try-unreachable': ({ member, session }) =>
      run('listVoucherDefinitions', () => unreachable.listVoucherDefinitions({ correlationId: member.correlationId, sessionToken: session.sessionToken })),
  };
  for (const [id, attempt] of Object.entries(tries)) {
    const button = byId(id) as HTMLButtonElement;
    button.addEventListener('click', () => {
      const signedIn = held.current;
      if (!signedIn) return;
      button.disabled = true;
      document.body.dataset.busy = 'true';
      void attempt(signedIn).then(() => {
        delete document.body.dataset.busy;
        button.disabled = document.body.dataset.state !== 'ready';
      });
    });
  }
}

/** The buttons that act in the member's session (the error buttons, Sign out): enabled while the page is ready. */
function enableMemberButtons(enabled: boolean): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('.tries button, #sign-out')) button.disabled = !enabled;
}

/**
 * Ends the member's session at the API (`endSession`, with the publishable
 * key and the token) and says what came of it, with the request id sent. A
 * sign-out the API did not confirm is shown for support too.
 */
async function signOut(loyalty: LoyaltyClient, { member, session }: SignedInMember): Promise<{ outcome: SignOutOutcome; requestId: string }> {
  const call = 'endSession';
  try {
    const result = await loyalty.endSession({ correlationId: member.correlationId, sessionToken: session.sessionToken });
    const outcome = signOutOutcome(result.error);
    if (result.error && outcome === 'not-confirmed') {
      showError(memberMessage(result.error), answerRecord(call, result.error, result.response, result.requestId, new Date()));
    }
    return { outcome, requestId: result.requestId };
  } catch (error) {
    if (!isLoyaltyRequestError(error)) throw error;
    showError('The loyalty program cannot be reached: check your connection and try again.', noAnswerRecord(call, error, new Date()));
    return { outcome: 'not-confirmed', requestId: error.requestId ?? 'none sent' };
  }
}

/**
 * The Sign out button: ends the session, then forgets the token whatever the
 * answer (the member asked to sign out; an unconfirmed session ends at its
 * expiry), clears what the page showed of the member and offers the sign-in
 * again.
 */
function offerSignOut(loyalty: LoyaltyClient, held: Held): void {
  const button = byId('sign-out') as HTMLButtonElement;
  button.addEventListener('click', () => {
    const signedIn = held.current;
    if (!signedIn) return;
    enableMemberButtons(false);
    document.body.dataset.state = 'signing-out';
    void signOut(loyalty, signedIn).then(({ outcome, requestId }) => {
      held.current = null;
      button.hidden = true;
      // Nothing of the member stays on the page: a shared computer shows the next person nothing.
      for (const id of ['vouchers-result', 'reservation-result']) byId(id).replaceChildren(el('p', { class: 'muted' }, 'Waiting for the sign-in…'));
      const text = signedOutText(outcome, times.format(new Date(signedIn.session.expiresAt)));
      byId('session-result').replaceChildren(el('p', { id: 'signed-out', 'data-outcome': outcome }, text), requestIdNote(requestId));
      byId('sign-in-form').hidden = false;
      document.body.dataset.state = 'signed-out';
    });
  });
}

function showEnvironment(config: ExampleConfig): void {
  const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
  byId('environment').textContent = `API ${config.apiBaseUrl} · page ${location.origin} · @loyalty/sdk ${SDK_VERSION}`;
  byId('sdk-size').textContent = `The SDK in this page: ${kB(__SDK_SIZE__.minifiedBytes)} minified, ${kB(__SDK_SIZE__.gzipBytes)} gzipped (with openapi-fetch).`;
}

async function main(): Promise<void> {
  const config = await loadExampleConfig();
  showEnvironment(config);
  // One client for the page: it holds the publishable key; each call says which member session it acts in.
  const loyalty = createLoyaltyClient({ baseUrl: config.apiBaseUrl, apiKey: config.publishableKey });
  const held: Held = { current: null };
  offerErrors(loyalty, config, held);
  offerSignOut(loyalty, held);
  offerSignIn(config, async (member, session) => {
    held.current = { member, session };
    await journey(loyalty, member, session.sessionToken);
    byId('sign-out').hidden = false;
    enableMemberButtons(true);
    document.body.dataset.state = 'ready';
  });
  document.body.dataset.state = 'signed-out';
}

main().catch((error: unknown) => {
  byId('support-log').prepend(el('article', { class: 'error' }, el('h3', {}, 'The page failed to start'), el('pre', {}, String(error))));
  document.body.dataset.state = 'failed';
});
