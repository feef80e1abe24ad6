/**
 * Deep copy of plain record data: objects, arrays, Dates and primitives, for
 * a caller that changes what it was handed (a wallet loaded for the
 * compare-and-set loop, a fixture's records); `frozenCopy` below is the
 * memory store's, once per write.
 *
 * Not `structuredClone`: under jest that function comes from the host realm
 * and returns Dates that fail `instanceof Date` inside the test's realm, so
 * code tested against the memory store would see different objects than in
 * production. This copy builds everything in the caller's realm and
 * recognises Dates from any realm. Plain assignment into a fresh literal,
 * and `Object.defineProperty` only for a `__proto__` key (from JSON), which
 * assignment would turn into a prototype change.
 */
export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return copyArray(value);
  if (value instanceof Date) return new Date(value.getTime());
  // A Date from another realm fails `instanceof Date`; its prototype is not this realm's Object.prototype.
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.prototype.toString.call(value) === '[object Date]') {
    return new Date((value as Date).getTime());
  }
  return copyObject(value as Record<string, unknown>);
}

function copyArray(array: unknown[]): unknown[] {
  const copy = new Array<unknown>(array.length);
  for (let i = 0; i < array.length; i++) copy[i] = copyValue(array[i]);
  return copy;
}

function copyObject(object: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    if (key === '__proto__') {
      // A "__proto__" key from JSON stays a plain key.
      Object.defineProperty(copy, key, { value: copyValue(object[key]), enumerable: true, writable: true, configurable: true });
    } else {
      copy[key] = copyValue(object[key]);
    }
  }
  return copy;
}

/**
 * A deep copy of plain record data, frozen through and through (arrays and
 * objects; a Date cannot be frozen, and nothing in this code base changes
 * one in place). The memory store keeps records so and hands them out as
 * they are: one copy when a record is written, none on the reads every
 * request makes.
 */
export function frozenCopy<T>(value: T): Readonly<T> {
  return freezeDeep(copyValue(value)) as T;
}

function freezeDeep(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  for (const key of Object.keys(value)) freezeDeep((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}
