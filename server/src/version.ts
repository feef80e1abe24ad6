import { readFileSync } from 'node:fs';
import path from 'node:path';

let version: string | undefined;

/**
 * The server's version: its package's (server/package.json, beside `src/`
 * and `dist/` alike), which a release sets with the SDK's and the
 * contract's. On every log line, and the spans' `service.version`. Read once.
 */
export function serverVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
