import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createApp } from '../app';
import { fakeServices } from './test-support/fakes';
import { defaultSpecPath, InvalidSpecError, loadApiSpec } from './spec';

const scratch = mkdtempSync(path.join(tmpdir(), 'spec-test-'));
const spec = readFileSync(defaultSpecPath, 'utf8');

function specFile(name: string, text: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, text);
  return file;
}

const build = (specPath: string) =>
  createApp({
    services: fakeServices(),
    store: { ping: async () => undefined },
    logger: pino({ level: 'silent' }),
    config: { rateLimitPerMinute: 0, bodyLimitBytes: 16384, trustProxy: false },
    specPath,
  });

describe('the spec at start-up', () => {
  it('finds openapi/openapi.yaml from the server package', async () => {
    await expect(loadApiSpec()).resolves.toMatchObject({ openapi: '3.0.3' });
  });

  it('is parsed once and shared, frozen', async () => {
    const [first, second] = await Promise.all([loadApiSpec(), loadApiSpec(defaultSpecPath)]);
    expect(first).toBe(second);
    expect(Object.isFrozen(first.paths)).toBe(true);
  });

  it.each([
    ['a missing file', path.join(scratch, 'absent.yaml'), /ENOENT/],
    ['broken YAML', specFile('broken.yaml', 'openapi: 3.0.3\ninfo: [unclosed\n'), /not usable/],
    ['a document that is not an object', specFile('list.yaml', '- 1\n- 2\n'), /does not hold an object/],
    ['a schema typo', specFile('typo.yaml', spec.replace('type: object', 'type: objekt')), /objekt/],
    ['a dangling $ref', specFile('ref.yaml', spec.replace("'#/components/schemas/Session'", "'#/components/schemas/Sesion'")), /Sesion/],
  ])('%s fails createApp with a clear message', async (_case, specPath, message) => {
    const attempt = build(specPath);
    await expect(attempt).rejects.toThrow(InvalidSpecError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('a fixed file can be loaded after a failure', async () => {
    const file = path.join(scratch, 'later.yaml');
    await expect(loadApiSpec(file)).rejects.toThrow(InvalidSpecError);
    writeFileSync(file, spec);
    await expect(loadApiSpec(file)).resolves.toMatchObject({ openapi: '3.0.3' });
  });
});
