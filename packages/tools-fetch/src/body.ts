import { TextDecoder } from "node:util";

/** A response body read up to a byte cap. */
export interface CappedBody {
  readonly bytes: Uint8Array;
  /** The body went on past the cap; the rest was never read. */
  readonly truncated: boolean;
}

/** Reads at most `cap` bytes, then cancels the stream so the connection stops delivering. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, cap: number): Promise<CappedBody> {
  if (!body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = cap - length;
      if (value.length > room) {
        chunks.push(value.subarray(0, room));
        length += room;
        truncated = true;
        break;
      }
      chunks.push(value);
      length += value.length;
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, truncated };
}

const TEXTUAL =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-www-form-urlencoded|ld\+json)|[^;]*\+(json|xml))/i;

/**
 * The body as text, or undefined when it is not text (an image, an archive). Without a content type the
 * bytes decide: a NUL byte in the first KiB means binary.
 */
export function bodyText(bytes: Uint8Array, contentType: string | undefined): string | undefined {
  if (contentType) {
    if (!TEXTUAL.test(contentType.trim())) return undefined;
  } else if (bytes.subarray(0, 1024).includes(0)) {
    return undefined;
  }
  return decoderFor(contentType).decode(bytes);
}

function decoderFor(contentType: string | undefined): TextDecoder {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
  if (charset) {
    try {
      return new TextDecoder(charset);
    } catch {
      // An unknown label falls back to UTF-8, which shows most pages well enough.
    }
  }
  return new TextDecoder("utf-8");
}
