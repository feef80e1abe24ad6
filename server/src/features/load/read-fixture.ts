import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FixtureError } from './fixture-error';
import type { Fixture } from './fixture-schema';
import { parseFixture } from './parse-fixture';

/**
 * The demo data `npm start` serves. Resolved from this file's folder so it
 * works from `server/src/features/load` (tests) and `server/dist/features/load` (built).
 */
export const demoFixturePath = path.resolve(__dirname, '..', '..', '..', 'fixtures', 'demo.json');

/** Reads and parses a fixture file; every failure names the file. */
export async function readFixtureFile(filePath: string): Promise<Fixture> {
  const source = `fixture file ${filePath}`;
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'read error';
    throw new FixtureError([{ path: '/', message: `cannot read the file (${code})` }], source);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new FixtureError([{ path: '/', message: `invalid JSON: ${(error as Error).message}` }], source);
  }
  return parseFixture(json, source);
}
