/**
 * Orders string keys the way MongoDB orders strings without a collation: by
 * their UTF-8 bytes (code point order). JavaScript's `<` compares UTF-16 code
 * units and disagrees for characters beyond U+FFFF; using this in every
 * adapter keeps "sorted by id" identical across stores.
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
