import { chooseCreative } from './locale';

const both = {
  'en-CA': { shortDescription1: '$5 off' },
  'fr-CA': { shortDescription1: '5 $ de rabais' },
};

describe('chooseCreative', () => {
  it.each([
    ['the first preferred locale, exactly', both, ['fr-CA', 'en-CA'], 'fr-CA'],
    ['an exact match, whatever its case', both, ['FR-ca'], 'fr-CA'],
    ['the same language in another region', both, ['fr-FR', 'fr'], 'fr-CA'],
    ['a bare language', both, ['fr'], 'fr-CA'],
    ['the earlier preference first, even by language only', both, ['fr-BE', 'en-CA'], 'fr-CA'],
    ['a later preference the voucher has', both, ['de-DE', 'fr-CA'], 'fr-CA'],
    ['en-CA when nothing preferred is there', both, ['de-DE', 'ja'], 'en-CA'],
    ['en-CA when the browser says nothing', both, [], 'en-CA'],
    ['en-CA for a voucher without the preferred locale', { 'en-CA': { shortDescription1: '$10 off' } }, ['fr-CA'], 'en-CA'],
    ['another locale of the same language before the en-CA fallback', { 'en-US': {}, 'en-CA': {} }, ['en-GB'], 'en-US'],
  ])('takes %s', (_case, creatives, preferred, expected) => {
    expect(chooseCreative(creatives, preferred)?.locale).toBe(expected);
  });

  it('gives the creative of the locale chosen', () => {
    expect(chooseCreative(both, ['fr'])).toEqual({ locale: 'fr-CA', creative: { shortDescription1: '5 $ de rabais' } });
  });

  it.each([
    ['no creative at all', {}],
    ['only locales neither preferred nor en-CA', { 'es-MX': { shortDescription1: '5 $ de descuento' } }],
  ])('gives null for %s (the page then shows the definition name)', (_case, creatives) => {
    expect(chooseCreative(creatives, ['fr-CA'])).toBeNull();
  });
});
