import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { parse as parseYaml } from 'yaml';
import type { middleware } from 'express-openapi-validator';

/** The OpenAPI document as express-openapi-validator takes it. Treat it as read-only: it is shared. */
export type ApiSpec = Exclude<Parameters<typeof middleware>[0]['apiSpec'], string>;

/**
 * `openapi/openapi.yaml` at the repository root. This file sits at the same
 * depth in `server/src/http` and `server/dist/http`, so the path works from
 * both (and from `/app/server/dist/http` in the container image).
 */
export const defaultSpecPath = path.resolve(__dirname, '../../../openapi/openapi.yaml');

/** Thrown when the spec cannot be read, parsed or validated; the message says why. */
export class InvalidSpecError extends Error {
  constructor(specPath: string, reason: string, options?: { cause?: unknown }) {
    super(`OpenAPI spec ${specPath} is not usable: ${reason}`, options);
    this.name = 'InvalidSpecError';
  }
}

const cache = new Map<string, Promise<ApiSpec>>();

/**
 * Reads, parses and validates the spec once per path (apps built in the same
 * process share it). A failure is not cached, so a fixed file can be retried.
 */
export function loadApiSpec(specPath: string = defaultSpecPath): Promise<ApiSpec> {
  const resolved = path.resolve(specPath);
  let pending = cache.get(resolved);
  if (!pending) {
    pending = readValidatedSpec(resolved);
    cache.set(resolved, pending);
    pending.catch(() => cache.delete(resolved));
  }
  return pending;
}

async function readValidatedSpec(specPath: string): Promise<ApiSpec> {
  let document: unknown;
  try {
    document = parseYaml(await readFile(specPath, 'utf8'));
  } catch (error) {
    throw new InvalidSpecError(specPath, error instanceof Error ? error.message : String(error), { cause: error });
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new InvalidSpecError(specPath, 'the file does not hold an object');
  }
  // validate() dereferences what it is given in place: give it a copy. It
  // checks the shape, so the static type it asks for is only asserted here.
  const copy = structuredClone(document) as Parameters<typeof validate>[0];
  const result = await validate(copy, { validate: { errors: { colorize: false } } });
  if (!result.valid) throw new InvalidSpecError(specPath, compileErrors(result));
  // Validated against the OpenAPI schema just above.
  return deepFreeze(document) as ApiSpec;
}

/** Frozen so that no consumer can change the copy every app shares. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
