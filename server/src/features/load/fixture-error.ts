/** One problem of a fixture: a JSON pointer into it and what is wrong there. */
export interface FixtureIssue {
  path: string;
  message: string;
}

/** A listing longer than this helps nobody; the count of the rest is given. */
const maxListedIssues = 50;

/** A fixture that cannot be loaded; the message lists every offending path. */
export class FixtureError extends Error {
  constructor(
    readonly issues: FixtureIssue[],
    source = 'fixture',
  ) {
    super(formatIssues(issues, source));
    this.name = 'FixtureError';
  }
}

function formatIssues(issues: FixtureIssue[], source: string): string {
  const lines = issues.slice(0, maxListedIssues).map((issue) => `  ${issue.path}: ${issue.message}`);
  if (issues.length > maxListedIssues) lines.push(`  ... and ${issues.length - maxListedIssues} more`);
  return [`Invalid ${source}:`, ...lines].join('\n');
}

/** JSON pointer of a child, escaped as RFC 6901 asks. */
export function pointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
