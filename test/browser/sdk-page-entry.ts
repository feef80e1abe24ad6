// The page of the SDK's browser test: the SDK as a partner's bundler gives it
// (through sdk/package.json to the committed sdk/dist), on `window` for the
// test's scripts.
import * as loyaltySdk from '@loyalty/sdk';

(globalThis as unknown as { loyaltySdk: typeof loyaltySdk }).loyaltySdk = loyaltySdk;
