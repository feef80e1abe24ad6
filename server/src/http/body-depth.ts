/** No document of the spec nests deeper than this; a body within the size limit could nest thousands of levels. */
export const maxBodyDepth = 16;

/** Nesting depth of a parsed JSON value, computed without recursion; stops counting past the limit. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > maxBodyDepth) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}
