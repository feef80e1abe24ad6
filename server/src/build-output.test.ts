import path from 'node:path';
import ts from 'typescript';

/*
 * What `npm run build -w @loyalty/server` compiles into server/dist: the
 * files its tsconfig names and every file they import, as tsc itself finds
 * them. Test code must stay out of the built server: the image ships it.
 */

const serverRoot = path.resolve(__dirname, '..');

function builtSources(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(serverRoot, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error('server/tsconfig.build.json could not be read');
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  return program
    .getSourceFiles()
    .filter((file) => !file.isDeclarationFile && !program.isSourceFileFromExternalLibrary(file))
    .map((file) => path.relative(serverRoot, file.fileName).split(path.sep).join('/'))
    .sort();
}

/** Test code by its name: the kinds the repository's file names give it. */
const testCodeNames = [/(^|\/)test-support\//, /\.test\.ts$/, /\.contract\.ts$/, /fault-inject/];
/** Packages only tests use. */
const testPackages = new Set(['jest', '@jest/globals', 'fast-check', '@pact-foundation/pact']);

describe('the server build', () => {
  const sources = builtSources();

  it('compiles the server from src: its entry points, nothing from elsewhere', () => {
    expect(sources).toEqual(expect.arrayContaining(['src/main.ts', 'src/admin/cli.ts', 'src/tracing.ts']));
    expect(sources.filter((file) => !file.startsWith('src/'))).toEqual([]);
  });

  it('holds no test code: no test, contract suite, test support or fault injector, imported or not', () => {
    expect(sources.filter((file) => testCodeNames.some((name) => name.test(file)))).toEqual([]);
  });

  it('imports no test framework', () => {
    const importers = sources.filter((file) =>
      ts.preProcessFile(ts.sys.readFile(path.join(serverRoot, file)) ?? '').importedFiles.some((imported) => testPackages.has(imported.fileName)),
    );
    expect(importers).toEqual([]);
  });
});
