/**
 * Version of this package, sent in `User-Agent`. Kept as a constant rather than
 * read from package.json at run time so that the SDK needs no JSON import and
 * no file system (it runs in browsers and edge runtimes too); a unit test keeps
 * it equal to `sdk/package.json`'s version.
 */
export const SDK_VERSION = '1.1.0-unreleased';

/**
 * Product token of the SDK in `User-Agent`. RFC 9110 product tokens cannot
 * contain `@` or a second `/`, so the npm name `@loyalty/sdk` is not used.
 */
export const SDK_PRODUCT = `loyalty-sdk-js/${SDK_VERSION}`;
