import { forbiddenMessages } from './errors';
import { keyUseRefusal, type KeyUse } from './key-use';
import type { ApiKeyRecord } from './model';

const api = 'https://loyalty.example.com';
const page = 'https://app.partner.example';
type Key = Pick<ApiKeyRecord, 'kind' | 'origins'>;
const secret: Key = { kind: 'secret', origins: [] };
const publishable: Key = { kind: 'publishable', origins: [page, 'http://127.0.0.1:5173'] };

const use = (startsSession: boolean, origin: string | undefined): KeyUse => ({ startsSession, origin, ownOrigin: api });

describe('what a key may be used for', () => {
  it.each<[string, Key, KeyUse, string | null]>([
    ['a secret key from a server starts a session', secret, use(true, undefined), null],
    ['a secret key from a server calls Operation A or B', secret, use(false, undefined), null],
    ["a secret key from the API's own page (/docs)", secret, use(true, api), null],
    ['a secret key from a page', secret, use(false, page), forbiddenMessages.secretFromPage],
    ['a secret key from a page, starting a session', secret, use(true, page), forbiddenMessages.secretFromPage],
    ['a secret key from an opaque origin (a sandboxed frame, a file)', secret, use(false, 'null'), forbiddenMessages.secretFromPage],
    ['a publishable key from one of its origins', publishable, use(false, page), null],
    ['a publishable key from its other origin', publishable, use(false, 'http://127.0.0.1:5173'), null],
    ['a publishable key starting a session from its origin', publishable, use(true, page), forbiddenMessages.publishableStartsSession],
    ['a publishable key starting a session from a server', publishable, use(true, undefined), forbiddenMessages.publishableStartsSession],
    ['a publishable key without Origin', publishable, use(false, undefined), forbiddenMessages.publishableOrigin],
    ['a publishable key from another origin', publishable, use(false, 'https://evil.example'), forbiddenMessages.publishableOrigin],
    ['a publishable key from a look-alike of its origin', publishable, use(false, `${page}/`), forbiddenMessages.publishableOrigin],
    ["a publishable key from the API's own page, which it does not name", publishable, use(false, api), forbiddenMessages.publishableOrigin],
  ])('%s', (_case, key, request, refusal) => {
    expect(keyUseRefusal(key, request)).toBe(refusal);
  });
});
