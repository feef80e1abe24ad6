/**
 * Immutable snapshots: values a service hands out to many requests at once
 * (a cached listing). Deep-frozen, so no caller can change what the others
 * see, and marked, so the HTTP layer knows it may serialise one once and
 * send the same bytes again (see `http/json-response.ts`).
 */
const snapshots = new WeakSet<object>();

/** Deep-freezes plain data (objects, arrays, primitives) and marks it as a snapshot. */
export function freezeSnapshot<T extends object>(value: T): Readonly<T> {
  deepFreeze(value);
  snapshots.add(value);
  return value;
}

/** True for a value `freezeSnapshot` returned: it cannot have changed since. */
export function isSnapshot(value: unknown): value is object {
  return typeof value === 'object' && value !== null && snapshots.has(value);
}

/** Plain data is a tree: no cycles to guard against. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
