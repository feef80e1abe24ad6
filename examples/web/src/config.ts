/**
 * What the page needs to know about its environment, served beside it as
 * `config.json` (by serve.mjs), so that one bundle works against any API.
 */
export interface ExampleConfig {
  /** The API's root URL, on another origin than the page. */
  apiBaseUrl: string;
  /** A publishable client key (`pk_...`): whatever ships to a browser is public. */
  apiKey: string;
  /** The member of the demo, and one of their reservations. */
  correlationId: string;
  reservationToken: string;
  /** What the reservation is lowered to. */
  reservationAmount: number;
  /** An address nothing answers at, to show a call that gets no answer. */
  unreachableBaseUrl: string;
}

export async function loadExampleConfig(): Promise<ExampleConfig> {
  const response = await fetch('./config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  return (await response.json()) as ExampleConfig;
}
