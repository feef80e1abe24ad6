/**
 * The environment for a process a test starts (`npm start`, a server, a
 * partner app): this one's, without npm's settings of the `npm test` run
 * (`npm_*`) and without the store the run points at (`MONGODB_*`). A server
 * started from it uses the embedded store unless the test says otherwise, so
 * it never writes into a database no test drops.
 */
export function childProcessEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !/^(npm_|MONGODB_)/i.test(name));
  return { ...Object.fromEntries(inherited), ...extra };
}
