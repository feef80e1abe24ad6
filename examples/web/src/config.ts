/**
 * What the page needs to know about its environment, served beside it as
 * `config.json` (by serve.mjs), so that one bundle works against any API.
 * No secret: whatever a page holds is public.
 */
export interface ExampleConfig {
  /** The API's root URL, on another origin than the page. */
  apiBaseUrl: string;
  /**
   * The client's publishable key (`lpk_...` when `loyalty-admin` made it): it works only from this page's
   * origin, on Operations A and B, and starts no session. The secret key
   * stays on the partner's server, which starts the sessions.
   */
  publishableKey: string;
  /** The members the demo sign-in offers, and the reservation the page lowers for each. */
  members: DemoMember[];
  /** An address nothing answers at, to show a call that gets no answer. */
  unreachableBaseUrl: string;
}

export interface DemoMember {
  correlationId: string;
  name: string;
  reservationToken: string;
  /** What the reservation is lowered to. */
  reservationAmount: number;
}

/** What the partner's server answers a sign-in: the member's loyalty session, which it started with its secret key. */
export interface SignedIn {
  correlationId: string;
  sessionToken: string;
  expiresAt: string;
  /** The request id the partner's server sent the API when it started the session. */
  requestId: string;
}

export async function loadExampleConfig(): Promise<ExampleConfig> {
  const response = await fetch('./config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  return (await response.json()) as ExampleConfig;
}

/** Signs `member` in through the partner's server (same origin as the page); throws with its message when it refuses. */
export async function signIn(member: string): Promise<SignedIn> {
  const response = await fetch('./sign-in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ member }) });
  const body = (await response.json().catch(() => ({}))) as Partial<SignedIn> & { error?: string };
  if (!response.ok || !body.sessionToken) throw new Error(body.error ?? `sign-in: HTTP ${response.status}`);
  return body as SignedIn;
}
