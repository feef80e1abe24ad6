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
import { answerRecord, memberMessage, noAnswerRecord, supportText, type CallError, type SupportRecord } from './support';

/** Set by the build (build.mjs): the SDK's size in a page. */
declare const __SDK_SIZE__: { minifiedBytes: number; gzipBytes: number };

const preferredLocales: readonly string[] = navigator.languages.length > 0 ? navigator.languages : [navigator.language];
const numbers = new Intl.NumberFormat(preferredLocales[0] ?? fallbackLocale);

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

/** Buttons that make the API answer each kind of error, to show what support gets. */
function offerErrors(loyalty: LoyaltyClient, config: ExampleConfig, member: DemoMember, sessionToken: string): void {
  const { correlationId, reservationToken } = member;
  const unreachable = createLoyaltyClient({ baseUrl: config.unreachableBaseUrl, apiKey: config.publishableKey, timeoutMs: 3000, retries: 1 });
  const tries: Record<string, () => Promise<unknown>> = {
    'try-raise': () =>
      run('updateReservation', () => loyalty.updateReservation({ correlationId, sessionToken, reservationToken, body: { reservationAmount: member.reservationAmount + 100_000 } })),
    // What a page's script would do if it tried to act for any member it likes: the publishable key starts no session.
    'try-page-session': () => run('startSession', () => loyalty.startSession({ correlationId: 'm-hh-2', identifierType: 'CARD_NUMBER' })),
    'try-expired-session': () => run('listVoucherDefinitions', () => loyalty.listVoucherDefinitions({ correlationId, sessionToken: 'st_expired_0123456789abcdefgh' })),
    'try-business-unit': () => run('listVoucherDefinitions', () => loyalty.listVoucherDefinitions({ correlationId, sessionToken, businessUnit: 'NOPE' })),
    'try-unreachable': () => run('listVoucherDefinitions', () => unreachable.listVoucherDefinitions({ correlationId, sessionToken })),
  };
  for (const [id, attempt] of Object.entries(tries)) {
    const button = byId(id) as HTMLButtonElement;
    button.disabled = false;
    button.addEventListener('click', () => {
      button.disabled = true;
      document.body.dataset.busy = 'true';
      void attempt().then(() => {
        delete document.body.dataset.busy;
        button.disabled = false;
      });
    });
  }
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
  offerSignIn(config, async (member, session) => {
    await journey(loyalty, member, session.sessionToken);
    offerErrors(loyalty, config, member, session.sessionToken);
    document.body.dataset.state = 'ready';
  });
  document.body.dataset.state = 'signed-out';
}

main().catch((error: unknown) => {
  byId('support-log').prepend(el('article', { class: 'error' }, el('h3', {}, 'The page failed to start'), el('pre', {}, String(error))));
  document.body.dataset.state = 'failed';
});
