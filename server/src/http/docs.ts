import path from 'node:path';
import express, { Router } from 'express';
import type { ApiSpec } from './spec';
import { docsContentSecurityPolicy } from './security-headers';

/** swagger-ui-dist's files, served from this process: the page needs no CDN. */
const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/**
 * Replaces the package's initializer (which points at the petstore demo):
 * load this server's spec, relative to /docs/ so it also works behind a path
 * prefix, and never call the public swagger.io validator.
 */
const swaggerInitializer = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
};
`;

/** `/openapi.json`: the spec the server validates with. `/docs`: swagger-ui rendering it. */
export function docsRoutes(spec: ApiSpec): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(spec);
  });
  router.use('/docs', docsContentSecurityPolicy());
  router.get('/docs/swagger-initializer.js', (_req, res) => {
    res.type('application/javascript').send(swaggerInitializer);
  });
  // `/docs` redirects to `/docs/` so the page's relative links resolve.
  router.use('/docs', express.static(swaggerUiDir, { index: 'index.html', redirect: true }));
  return router;
}
