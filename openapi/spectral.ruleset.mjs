// Spectral's lint rules for openapi/openapi.yaml, run by `npm run spec:check`
// (scripts/spec-check.mjs) at zero warnings, beside Redocly's
// (redocly.lint.yaml). The same file works with Spectral's CLI:
//   npx @stoplight/spectral-cli lint openapi/openapi.yaml --ruleset openapi/spectral.ruleset.mjs
import { oas } from '@stoplight/spectral-rulesets';

export default {
  // `spectral:oas`: its recommended rules, as `extends: spectral:oas` means.
  extends: [[oas, 'recommended']],
  rules: {
    // Off by default in spectral:oas, on here: the spec keeps them already.
    'info-license': 'warn',
    'openapi-tags': 'warn',
    'operation-singular-tag': 'warn',
    'tag-description': 'warn',
    'oas3-parameter-description': 'warn',
    // Stay off. The API is proprietary: its licence has no public text to
    // link to. `contact-properties` wants a public URL and e-mail address,
    // which a reference implementation deployed by others has not got.
    // Tags follow the order of the operations (session, A, B), not the alphabet.
  },
};
