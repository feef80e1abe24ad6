import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { deepCopy } from '../../store/copy';
import { checkFixture } from './check-fixture';
import { FixtureError, pointer, type FixtureIssue } from './fixture-error';
import { fixtureSchema, type Fixture } from './fixture-schema';

let compiled: ValidateFunction<Fixture> | undefined;

/** Compiled once, on first use: start-up without a fixture never pays for it. */
function validator(): ValidateFunction<Fixture> {
  if (!compiled) {
    // allowUnionTypes: the format uses `type: [x, "null"]`, which strict mode would only warn about.
    const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true });
    addFormats(ajv);
    compiled = ajv.compile<Fixture>(fixtureSchema);
  }
  return compiled;
}

/** Points at the offending property itself, not its parent, where ajv knows it. */
function issueOfAjvError(error: ErrorObject): FixtureIssue {
  const at = error.instancePath;
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { path: pointer(at, params.missingProperty), message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return { path: pointer(at, params.additionalProperty), message: 'is not an allowed property' };
  }
  return { path: at || '/', message: error.message ?? `fails ${error.keyword}` };
}

function uniqueIssues(issues: FixtureIssue[]): FixtureIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Validates a parsed JSON value against the fixture schema, then checks what
 * a schema cannot say (check-fixture.ts: references inside the fixture,
 * sums, duplicate keys). Returns a copy; throws `FixtureError` listing every
 * offending path.
 */
export function parseFixture(json: unknown, source = 'fixture'): Fixture {
  const validate = validator();
  if (!validate(json)) {
    throw new FixtureError(uniqueIssues((validate.errors ?? []).map(issueOfAjvError)), source);
  }
  const issues = checkFixture(json);
  if (issues.length > 0) throw new FixtureError(issues, source);
  return deepCopy(json);
}
