/**
 * A MongoDB server's error message without the values it quotes. The server
 * quotes documents, and parts of them, in braces: a duplicate key
 * (`E11000 duplicate key error collection: loyalty.wallets index: _id_ dup
 * key: { _id: "member:m-alice" }`), the document an update could not apply
 * to (`Cannot apply $inc to a value of non-numeric type. { _id: "…" } has the
 * field …`). Each brace group, quoted strings inside it included, becomes
 * `{…}`; one left open is cut to the end. What the message says around
 * them stays: the collection, the index, the field, the reason.
 *
 * Imports nothing: the spans' processor (otel/span-errors.ts) uses it too,
 * and it loads before the driver is instrumented.
 */
export function withoutDocumentValues(message: string): string {
  let shown = '';
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < message.length; i++) {
    const char = message[i]!;
    if (depth === 0) {
      if (char === '{') {
        depth = 1;
        shown += '{…}';
      } else shown += char;
      continue;
    }
    if (quote !== null) {
      if (char === '\\') i++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '{') depth++;
    else if (char === '}') depth--;
  }
  return shown;
}
