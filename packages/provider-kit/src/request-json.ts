// A request body as JSON text, without encoding the whole conversation again every turn. A run resends
// its transcript with each request, so encoding it all costs time that grows with the session (and the
// SDKs' own encoders walk every value with a replacer). The messages a provider converts once and keeps
// (frozen, so nothing can change them after their text is kept) are encoded once; the text is the same,
// byte for byte, as JSON.stringify of the whole body.

/** The JSON text of each frozen list entry encoded so far, by entry. One per model: entries are its own. */
export type EncodedEntries = WeakMap<object, string>;

/**
 * `JSON.stringify(body)`, with the array at `listKey` encoded entry by entry: an entry that is frozen
 * (`Object.isFrozen`) is encoded the first time it is seen and its text reused after, so whoever makes
 * the entries freezes only those they never change, all the way down ({@link deepFreeze}). Every other
 * value is encoded each time.
 */
export function requestJson(body: object, listKey: string, encoded: EncodedEntries): string {
  const list = (body as Record<string, unknown>)[listKey];
  if (!Array.isArray(list)) return JSON.stringify(body);
  let text = "{";
  let first = true;
  for (const key of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[key];
    const json = key === listKey ? listJson(list, encoded) : JSON.stringify(value);
    // Keys whose value JSON leaves out (undefined, functions, symbols) are left out here too.
    if (json === undefined) continue;
    text += `${first ? "" : ","}${JSON.stringify(key)}:${json}`;
    first = false;
  }
  return `${text}}`;
}

function listJson(list: readonly unknown[], encoded: EncodedEntries): string {
  const parts: string[] = [];
  for (const entry of list) {
    if (typeof entry === "object" && entry !== null && Object.isFrozen(entry)) {
      let json = encoded.get(entry);
      if (json === undefined) {
        json = JSON.stringify(entry);
        encoded.set(entry, json);
      }
      parts.push(json);
    } else {
      // In an array JSON writes null where it leaves a key out.
      parts.push(JSON.stringify(entry) ?? "null");
    }
  }
  return `[${parts.join(",")}]`;
}

/** Freezes `value` and every object and array inside it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    // Inside a frozen object (frozen by someone else, shallowly) there may still be one that is not.
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
