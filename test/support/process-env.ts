/**
 * The environment for a process a test starts (`npm start`, a server, a
 * partner app): this one's, without npm's settings of the `npm test` run
 * (`npm_*`) and without the store the run points at (`MONGODB_*`). A server
 * started from it uses the embedded store unless the test says otherwise, so
 * it never writes into a database no test drops. It serves its metrics on a
 * free port of its own (`METRICS_PORT=0`, named in its first log lines)
 * unless the test says otherwise: two servers on one host cannot share the
 * default port, 9464, and tests run side by side.
 */
export function childProcessEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !/^(npm_|MONGODB_)/i.test(name));
  return { ...Object.fromEntries(inherited), METRICS_PORT: '0', ...extra };
}
