import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { parse as parseYaml } from 'yaml';
import type { middleware } from 'express-openapi-validator';

/** An OpenAPI document as express-openapi-validator takes it. Read-only: every app of the process shares it. */
export type ApiSpec = Exclude<Parameters<typeof middleware>[0]['apiSpec'], string>;

/** The spec, read, validated and frozen once; each reader takes the form it needs. */
export interface LoadedSpec {
  /** The file it was read from, for messages. */
  source: string;
  /** As written, `$ref`s included: express-openapi-validator, `/openapi.json` and the CORS policy read it. */
  document: ApiSpec;
  /** Every `$ref` replaced by its target (targets shared, not copied): the accept-only checks compile it. */
  dereferenced: ApiSpec;
}

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

const loaded = new Map<string, Promise<LoadedSpec>>();

/**
 * Reads, parses, dereferences and validates the spec once per path: `main`
 * before anything connects, and every app built in the process after it,
 * share one. A failure is not kept, so a fixed file can be loaded again.
 */
export function loadApiSpec(specPath: string = defaultSpecPath): Promise<LoadedSpec> {
  const resolved = path.resolve(specPath);
  let pending = loaded.get(resolved);
  if (!pending) {
    pending = readValidatedSpec(resolved);
    loaded.set(resolved, pending);
    pending.catch(() => loaded.delete(resolved));
  }
  return pending;
}

async function readValidatedSpec(specPath: string): Promise<LoadedSpec> {
  const document = await readDocument(specPath);
  const fail = (error: unknown): never => {
    throw new InvalidSpecError(specPath, reasonOf(error), { cause: error });
  };
  // dereference() replaces the `$ref`s of what it is given: give it a copy.
  // The static type it asks for is only asserted here: validate() checks the shape.
  const dereferenced = await dereference(structuredClone(document) as Parameters<typeof dereference>[0]).catch(fail);
  // On a document without `$ref`s, validate() has nothing left to resolve: it only validates.
  const result = await validate(dereferenced, { validate: { errors: { colorize: false } } });
  if (!result.valid) throw new InvalidSpecError(specPath, compileErrors(result));
  // Validated against the OpenAPI schema just above.
  return { source: specPath, document: deepFreeze(document) as ApiSpec, dereferenced: deepFreeze(dereferenced) as ApiSpec };
}

async function readDocument(specPath: string): Promise<object> {
  let document: unknown;
  try {
    document = parseYaml(await readFile(specPath, 'utf8'));
  } catch (error) {
    throw new InvalidSpecError(specPath, reasonOf(error), { cause: error });
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new InvalidSpecError(specPath, 'the file does not hold an object');
  }
  return document;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Frozen so that no reader can change what every app shares. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
