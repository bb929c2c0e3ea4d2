/** One server-sent event: an optional `event:` name and its `data:` payload (sent as given). */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

export function encodeSse(event: SseEvent): string {
  const name = event.event === undefined ? "" : `event: ${event.event}\n`;
  const data = event.data
    .split("\n")
    .map((line) => `data: ${line}\n`)
    .join("");
  return `${name}${data}\n`;
}

/** A JSON payload as an event, named after its `type` when `named` (Anthropic and Responses name theirs). */
export function jsonEvent(payload: object, named: boolean): SseEvent {
  const data = JSON.stringify(payload);
  const type = (payload as { readonly type?: unknown }).type;
  return named && typeof type === "string" ? { event: type, data } : { data };
}

/** Splits text into pieces of `size` characters (UTF-16 units: a surrogate pair may be cut, as real streams do). */
export function chunkText(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += Math.max(1, size))
    out.push(text.slice(at, at + Math.max(1, size)));
  return out;
}

/** Splits text at the given offsets. */
export function splitAt(text: string, offsets: readonly number[]): string[] {
  const cuts = [...new Set(offsets.filter((at) => at > 0 && at < text.length))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    out.push(text.slice(from, cut));
    from = cut;
  }
  out.push(text.slice(from));
  return out;
}
