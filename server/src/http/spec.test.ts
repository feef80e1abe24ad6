import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createApp, type AppDeps } from '../app';
import { fakeServices } from '../test-support/fake-services';
import { createHttpServer } from './http-server';
import { servedSpec } from './routes';
import { defaultSpecPath, InvalidSpecError, loadApiSpec, type LoadedSpec } from './spec';

const scratch = mkdtempSync(path.join(tmpdir(), 'spec-test-'));
const spec = readFileSync(defaultSpecPath, 'utf8');

function specFile(name: string, text: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, text);
  return file;
}

const appOn = (spec: LoadedSpec) =>
  createApp({
    spec: servedSpec(spec),
    services: fakeServices(),
    store: { ping: async () => undefined },
    logger: pino({ level: 'silent' }),
    config: { rateLimitPerMinute: 0, bodyLimitBytes: 16384, trustProxy: false },
  });

/** Every `$ref` found in `value`, by where it is. */
function refsIn(value: unknown, at = '#'): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => (key === '$ref' ? [at] : refsIn(child, `${at}/${key}`)));
}

describe('the spec at start-up', () => {
  it('finds openapi/openapi.yaml from the server package', async () => {
    await expect(loadApiSpec()).resolves.toMatchObject({ document: { openapi: '3.0.3' } });
  });

  it('is loaded once and shared, frozen, in both forms', async () => {
    const [first, second] = await Promise.all([loadApiSpec(), loadApiSpec(defaultSpecPath)]);
    expect(first).toBe(second);
    expect(Object.isFrozen(first.document.paths)).toBe(true);
    expect(Object.isFrozen(first.dereferenced.paths)).toBe(true);
  });

  it('keeps the document as written, and gives it dereferenced as well', async () => {
    const { document, dereferenced } = await loadApiSpec();
    expect(refsIn(document).length).toBeGreaterThan(0);
    expect(refsIn(dereferenced)).toEqual([]);
    expect(dereferenced.paths).toEqual(expect.objectContaining(Object.fromEntries(Object.keys(document.paths ?? {}).map((key) => [key, expect.any(Object)]))));
  });

  it.each([
    ['a missing file', path.join(scratch, 'absent.yaml'), /ENOENT/],
    ['broken YAML', specFile('broken.yaml', 'openapi: 3.0.3\ninfo: [unclosed\n'), /not usable/],
    ['a document that is not an object', specFile('list.yaml', '- 1\n- 2\n'), /does not hold an object/],
    ['a schema typo', specFile('typo.yaml', spec.replace('type: object', 'type: objekt')), /objekt/],
    ['a dangling $ref', specFile('ref.yaml', spec.replace("'#/components/schemas/Session'", "'#/components/schemas/Sesion'")), /Sesion/],
  ])('%s fails the load with a clear message', async (_case, specPath, message) => {
    const attempt = loadApiSpec(specPath);
    await expect(attempt).rejects.toThrow(InvalidSpecError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('a fixed file can be loaded after a failure', async () => {
    const file = path.join(scratch, 'later.yaml');
    await expect(loadApiSpec(file)).rejects.toThrow(InvalidSpecError);
    writeFileSync(file, spec);
    await expect(loadApiSpec(file)).resolves.toMatchObject({ document: { openapi: '3.0.3' } });
  });

  it('a valid spec that moved an operation cannot be given to createApp: its check fails, naming it', async () => {
    const moved = await loadApiSpec(specFile('moved.yaml', spec.replace('/client/users/{correlation_id}/sessions:', '/client/members/{correlation_id}/sessions:')));
    expect(() => servedSpec(moved)).toThrow(InvalidSpecError);
    expect(() => servedSpec(moved)).toThrow(/operation startSession is at POST \/client\/members\//);
  });

  it('is given to createApp only once checked against the routes (type-level: `npm run typecheck`)', async () => {
    const loaded = await loadApiSpec();
    // @ts-expect-error a spec loaded but not checked against the server's routes
    const unchecked: AppDeps['spec'] = loaded;
    const checked: AppDeps['spec'] = servedSpec(loaded);
    expect(checked).toBe(unchecked);
  });

  it('the app serves and validates with the spec it is given, without reading one', async () => {
    const renamed = await loadApiSpec(specFile('renamed.yaml', spec.replace(/^  title: .*$/m, '  title: Given to createApp')));
    const server = createHttpServer(await appOn(renamed)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const served = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as { info: { title: string } };
      expect(served.info.title).toBe('Given to createApp');
    } finally {
      server.close();
    }
  });
});
