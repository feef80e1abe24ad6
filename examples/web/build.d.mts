// Types of build.mjs, for the TypeScript tests that import it.
export declare const sdkGzipBudgetBytes: number;

export interface SdkSize {
  minifiedBytes: number;
  gzipBytes: number;
  /** The files bundled, relative to the repository (`sdk/dist/index.mjs`, openapi-fetch's). */
  inputs: string[];
}

export interface BuiltExample {
  files: Record<string, { contentType: string; body: Buffer }>;
  sdk: SdkSize;
  page: { minifiedBytes: number; gzipBytes: number; inputs: string[] };
}

export declare function measureSdk(root: string): Promise<SdkSize>;
export declare function buildExample(root: string): Promise<BuiltExample>;
export declare function describeSizes(built: Pick<BuiltExample, 'sdk' | 'page'>): string;
