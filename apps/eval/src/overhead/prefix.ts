// Prefix stability: how much of each model request is a byte-identical prefix of the next, the part a
// provider's prompt cache can serve. Measured at the server, from the bodies as sent, the same way for
// every agent.

/**
 * A request body as a prompt cache reads it: the tools, then the system prompt, then each message, each
 * serialized as sent (key order kept). Chat Completions (`messages`, system first among them), Responses
 * (`instructions`, `input`) and Anthropic Messages (`system`, `messages`) bodies alike.
 */
export function cacheText(body: unknown): string {
  if (body === null || typeof body !== "object") return "";
  const { tools, system, instructions, messages, input } = body as Record<string, unknown>;
  const parts: unknown[] = [tools ?? [], system ?? instructions ?? ""];
  const turns = messages ?? input;
  if (Array.isArray(turns)) parts.push(...turns);
  return parts.map((part) => `${JSON.stringify(part)}\n`).join("");
}

/** The length of the longest common prefix of two strings, in UTF-16 units. */
export function commonPrefixLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** One request followed by the next: its size, and how much of it the next one repeats exactly. */
export interface PrefixPair {
  readonly bytes: number;
  readonly kept: number;
  /** The earlier request came after the session's first compaction. */
  readonly afterCompaction: boolean;
}

/**
 * Follows a session's requests in order and keeps, per pair of consecutive requests, how much of the
 * earlier is a prefix of the later. Only the previous request's text is held, so a long session costs
 * no more memory than its largest request.
 */
export class PrefixTracker {
  readonly pairs: PrefixPair[] = [];
  #previous: string | undefined;
  #compacted = false;

  add(body: unknown): void {
    const text = cacheText(body);
    const previous = this.#previous;
    if (previous !== undefined) {
      this.pairs.push({
        bytes: previous.length,
        kept: commonPrefixLength(previous, text),
        afterCompaction: this.#compacted,
      });
    }
    this.#previous = text;
  }

  /**
   * A summary request came: the next model request starts a new transcript, so the pair across it is
   * left out and what follows counts as "after compaction".
   */
  compacted(): void {
    this.#compacted = true;
    this.#previous = undefined;
  }

  get compactions(): boolean {
    return this.#compacted;
  }
}

/** The kept share of the pairs' bytes (1 when each request is a prefix of the next), NaN without pairs. */
export function prefixShare(pairs: readonly PrefixPair[]): number {
  let bytes = 0;
  let kept = 0;
  for (const pair of pairs) {
    bytes += pair.bytes;
    kept += pair.kept;
  }
  return bytes === 0 ? Number.NaN : kept / bytes;
}
