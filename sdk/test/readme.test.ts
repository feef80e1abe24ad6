import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, reservation, session, voucher } from './support/fake-fetch';

// README.md shows test/readme-example.ts verbatim: tsc type-checks that file
// under the repo's strict settings, and this test runs it, so the README's
// example can neither stop compiling nor stop working unnoticed.
const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
const example = readFileSync(join(__dirname, 'readme-example.ts'), 'utf8');

function readmeExample(): string {
  const marker = '<!-- example: test/readme-example.ts -->';
  const start = readme.indexOf(marker);
  if (start < 0) throw new Error(`README.md has no ${marker}`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!block?.[1]) throw new Error('README.md has no ts block after the example marker');
  return block[1];
}

it('README.md shows test/readme-example.ts verbatim', () => {
  expect(readmeExample()).toBe(example);
});

// Until the package is published, the README says to pack it from a clone: of the repository package.json names.
it("README.md's install before publishing clones the repository sdk/package.json names", () => {
  const { repository } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { repository: { url: string } };
  const clone = /^git clone (\S+)$/m.exec(readme)?.[1];
  expect(clone).toBe(repository.url.replace(/^git\+/, ''));
  expect(readme).toContain('npm pack -w @loyalty/sdk');
});

it('the README example runs from session to reservation update, then signs out', async () => {
  const seen: Request[] = [];
  // Answers like the server would, by route.
  const fetchSpy = jest.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    const request = input as Request;
    seen.push(request);
    const { pathname } = new URL(request.url);
    if (pathname === '/client/users/m-alice/sessions') return json(201, session);
    if (pathname === '/client/users/m-alice/voucher-definitions') return json(200, [voucher]);
    if (pathname === '/client/users/m-alice/reservations/rt-alice-1') return json(200, reservation);
    if (request.method === 'DELETE' && pathname === '/client/users/m-alice/sessions/current') return new Response(null, { status: 204 });
    return json(404, { statusCode: 404, errorCode: 'NOT_FOUND', errorMessage: 'no route' });
  });
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  process.env.LOYALTY_API_KEY = 'demo_secret_partner_app_0001';
  process.env.LOYALTY_BASE_URL = 'http://loyalty.test';

  try {
    // The example runs main() when loaded, like `node app.js` would.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded as `node app.js` loads it: synchronously, once per test
    jest.isolateModules(() => require('./readme-example'));
    for (let i = 0; i < 100 && log.mock.calls.length < 3; i++) await new Promise((resolve) => setImmediate(resolve));

    expect(errors).not.toHaveBeenCalled();
    expect(log.mock.calls).toEqual([
      ['vd-0001: $5 off (5000 points)'],
      ['Reservation rt-alice-1 holds for 900 s; 42500 points available'],
      ['Signed out'],
    ]);
    expect(seen.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      'POST /client/users/m-alice/sessions',
      'GET /client/users/m-alice/voucher-definitions',
      'PUT /client/users/m-alice/reservations/rt-alice-1',
      'DELETE /client/users/m-alice/sessions/current',
    ]);
    expect(seen[3]?.headers.get('Authorization')).toBe(`Bearer ${session.sessionToken}`);
    expect(seen[2]?.headers.get('Authorization')).toBe(`Bearer ${session.sessionToken}`);
    expect(seen[2]?.headers.get('User-Agent')).toMatch(/^coffee-kiosk\/1\.0\.0 loyalty-sdk-js\//);
  } finally {
    fetchSpy.mockRestore();
    log.mockRestore();
    errors.mockRestore();
    delete process.env.LOYALTY_API_KEY;
    delete process.env.LOYALTY_BASE_URL;
  }
});
