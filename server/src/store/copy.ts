/**
 * Deep copy of plain record data: objects, arrays, Dates and primitives.
 *
 * Not `structuredClone`: under jest that function comes from the host realm
 * and returns Dates that fail `instanceof Date` inside the test's realm, so
 * code tested against the memory store would see different objects than in
 * production. This copy builds everything in the caller's realm and
 * recognises Dates from any realm.
 */
export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyValue);
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date((value as Date).getTime());
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    // defineProperty, not assignment: a "__proto__" key from JSON stays a plain key.
    Object.defineProperty(copy, key, { value: copyValue(field), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
