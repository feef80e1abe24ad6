import express from 'express';
import { loadApiSpec, type ApiSpec } from './spec';
import { openApiValidator } from './openapi-validator';

describe('openApiValidator', () => {
  it('resolves once the validator has loaded the spec, with its middleware as one handler', async () => {
    const handler = await openApiValidator(express(), (await loadApiSpec()).document, { validateResponses: false });
    expect(handler).toEqual(expect.any(Function));
  });

  it('rejects at build time a spec the validator cannot load (it would otherwise 500 on the first request)', async () => {
    const spec = structuredClone((await loadApiSpec()).document) as { components: { schemas: Record<string, unknown> } };
    delete spec.components.schemas.Session;
    await expect(openApiValidator(express(), spec as unknown as ApiSpec, { validateResponses: false })).rejects.toThrow(
      /express-openapi-validator cannot use the spec/,
    );
  });
});
