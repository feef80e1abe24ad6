// Types of demo-data.mjs, for the TypeScript tests that import it.
export declare const demoClientId: string;
export declare function demoKeys(root: string): { secret: string; publishable: string };
export declare function demoFixtureFor(root: string, pageOrigin: string): string;
