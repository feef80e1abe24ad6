// The operators' configuration reference, docs/configuration.md, generated
// from the variables' own definitions in server/src/config.ts:
//
//   npm run docs:config            writes it
//   npm run docs:config -- --check fails when the committed file differs (npm test)
//
// Run with test/soak/register.cjs, which lets node load the TypeScript sources.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configSections, configVariables, type ConfigVariable } from '../server/src/config';

const target = path.join(__dirname, '..', 'docs', 'configuration.md');

const intro = `# Configuration

<!-- Generated from server/src/config.ts by \`npm run docs:config\`: change the definitions there, not this file. -->

The server reads its configuration from the environment once, at start-up
(\`server/src/config.ts\`, where each variable below is defined; this page is
generated from those definitions). A value that is set but invalid stops the
start with one message naming each invalid variable and what it takes. An
empty value counts as unset. \`loyalty-admin\` reads the same variables (it
needs \`MONGODB_URI\`).

\`\`\`sh
SEED_FILE=path/to/fixture.json PORT=4000 npm start
docker run --rm -p 3000:3000 -e MONGODB_URI=mongodb://db:27017 -e LOG_MEMBER_IDS=off loyalty-api
\`\`\`

Once tracing is on, the OpenTelemetry SDK also reads variables of its own
(headers, timeouts, batch sizes, resource attributes): see
[Observability](observability.md#variables-the-opentelemetry-sdk-reads).
`;

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function row(variable: ConfigVariable): string {
  const fallback = variable.default === null ? 'unset' : `\`${variable.default}\``;
  return `| \`${variable.name}\` | ${fallback} | ${cell(variable.values)} | ${cell(variable.meaning)} |`;
}

export function configReference(): string {
  const variables: ConfigVariable[] = Object.values(configVariables);
  const parts = [intro];
  for (const [section, title] of Object.entries(configSections)) {
    const rows = variables.filter((variable) => variable.section === section).map(row);
    if (rows.length === 0) throw new Error(`config.ts: section ${section} has no variable`);
    parts.push(`## ${title}\n\n| variable | default | values | meaning |\n|---|---|---|---|\n${rows.join('\n')}\n`);
  }
  return parts.join('\n');
}

if (require.main === module) {
  const fresh = configReference();
  if (process.argv.includes('--check')) {
    const committed = readFileSync(target, 'utf8');
    if (committed !== fresh) {
      console.error('docs/configuration.md is stale: run `npm run docs:config` and commit it.');
      process.exit(1);
    }
  } else {
    writeFileSync(target, fresh);
    console.log('docs/configuration.md written');
  }
}
