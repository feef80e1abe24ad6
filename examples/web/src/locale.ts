import type { Creative } from '@loyalty/sdk';

/** The locale every voucher's creative is written in first; shown when none of the member's is there. */
export const fallbackLocale = 'en-CA';

export interface ChosenCreative {
  /** The key of `creative` chosen, such as `fr-CA`. */
  locale: string;
  creative: Creative;
}

/**
 * The creative to show: the first of the browser's preferred locales
 * (`navigator.languages`) that the voucher has, exactly (case aside) or else
 * by language (`fr` or `fr-FR` take `fr-CA`); then `en-CA`; then null (show
 * the definition's name).
 */
export function chooseCreative(creatives: Readonly<Record<string, Creative>>, preferred: readonly string[]): ChosenCreative | null {
  const locales = Object.keys(creatives);
  const pick = (locale: string | undefined): ChosenCreative | null => {
    const creative = locale === undefined ? undefined : creatives[locale];
    return locale !== undefined && creative ? { locale, creative } : null;
  };
  for (const wanted of preferred) {
    const exact = locales.find((locale) => locale.toLowerCase() === wanted.toLowerCase());
    const sameLanguage = locales.find((locale) => languageOf(locale) === languageOf(wanted));
    const chosen = pick(exact) ?? pick(sameLanguage);
    if (chosen) return chosen;
  }
  return pick(locales.find((locale) => locale === fallbackLocale));
}

function languageOf(locale: string): string {
  return (locale.split('-')[0] ?? '').toLowerCase();
}
