import type { FileHandle } from "node:fs/promises";
import { TextDecoder } from "node:util";
import {
  argumentAliases,
  defineTool,
  ToolFailure,
  type ToolOutput,
  type ToolResultContent,
  type Workspace,
} from "@bridle/core";
import { z } from "zod";
import { LinePager } from "./line-pager.js";
import { type OpenedInside, openInside } from "./open-inside.js";
import type { FsSettings } from "./options.js";
import { formatCount } from "./paths.js";
import { type FileSnapshot, snapshotOf } from "./snapshot.js";
import { decodeText, looksBinary, sniffEncoding } from "./text-format.js";

export interface ReadFileDetails {
  readonly path: string;
  readonly size: number;
  /** Set for text: the first and last line shown (0 and 0 for an empty file). */
  readonly startLine?: number;
  readonly endLine?: number;
  /** Lines in the file, when the whole file was read. */
  readonly totalLines?: number;
  /** Where to continue, when there is more. */
  readonly nextOffset?: number;
  readonly cutLines?: number;
  readonly encoding?: string;
  /** Bytes read from disk to answer. */
  readonly scannedBytes: number;
  readonly binary?: { readonly kind: string };
}

const inputSchema = z.object({
  path: z.string().min(1).describe("file"),
  offset: z.number().int().min(1).optional().describe("1-based first line (default 1)"),
  limit: z.number().int().min(1).optional().describe("most lines (default 2000)"),
  column: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("1-based character of the line at offset to start from"),
});

const STREAM_CHUNK_BYTES = 256 * 1024;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export function createReadFileTool(settings: FsSettings) {
  return defineTool({
    name: "read_file",
    description:
      `Read a text file as numbered lines (number, tab, text): up to ${settings.readLimit} lines from offset, ${formatCount(settings.maxReadChars)} characters a call; ` +
      `lines over ${settings.maxLineChars} characters are cut (column reads on). ` +
      "Images (PNG, JPEG, GIF, WebP) come back as images.",
    inputSchema,
    // Spellings other agents' tools taught models (OpenCode's filePath).
    prepareArguments: argumentAliases({ filePath: "path" }),
    annotations: { read_only: true, idempotent: true },
    async execute(args, ctx): Promise<ToolOutput<ReadFileDetails>> {
      const opened = await openInside(ctx.workspace, args.path);
      try {
        return await readOpened(opened, args, ctx.signal, ctx.runId, ctx.workspace, settings);
      } finally {
        await opened.handle.close();
      }
    },
  });
}

async function readOpened(
  { handle, real, stats }: OpenedInside,
  args: {
    path: string;
    offset?: number | undefined;
    limit?: number | undefined;
    column?: number | undefined;
  },
  signal: AbortSignal,
  runId: string,
  workspace: Workspace,
  settings: FsSettings,
): Promise<ToolOutput<ReadFileDetails>> {
  if (stats.isDirectory()) {
    throw new ToolFailure(
      "InvalidInput",
      `${args.path} is a directory, not a file. Use list_dir to see what it holds.`,
    );
  }
  if (!stats.isFile()) throw new ToolFailure("InvalidInput", `${args.path} is not a regular file`);
  // With a column, one line is read from that character on, up to a page's worth of characters.
  const column = args.column;
  const limits = {
    offset: args.offset ?? 1,
    limit: column === undefined ? Math.min(args.limit ?? settings.readLimit, 100_000) : 1,
    maxLineChars: column === undefined ? settings.maxLineChars : settings.maxReadChars,
    maxChars: settings.maxReadChars,
    skipChars: column === undefined ? 0 : column - 1,
  };
  const pager = new LinePager(limits);
  const size = Number(stats.size);
  let snapshot: FileSnapshot;
  let scannedBytes: number;
  let encoding: string;
  let wholeFile: boolean;
  let head: Uint8Array;
  if (size <= settings.wholeReadBytes) {
    const bytes = await handle.readFile({ signal });
    head = bytes.subarray(0, 8_192);
    snapshot = snapshotOf(stats, bytes);
    scannedBytes = bytes.length;
    wholeFile = true;
    if (!looksBinary(head)) {
      const decoded = decodeText(bytes);
      encoding = decoded.format.encoding;
      pager.push(decoded.text);
      pager.finish();
    } else encoding = "binary";
  } else {
    const streamed = await pageLargeFile(handle, pager, signal);
    head = streamed.head;
    snapshot = snapshotOf(stats);
    scannedBytes = streamed.scannedBytes;
    encoding = streamed.encoding;
    wholeFile = streamed.scannedBytes >= size;
  }
  settings.tracker.remember(runId, real, snapshot);
  const shown = workspace.display(real);

  if (encoding === "binary") return binaryAnswer(handle, shown, head, size);
  if (pager.lines.length === 0) {
    const total = pager.linesSeen;
    if (total === 0) {
      return {
        content: `${shown} is empty (0 lines).`,
        details: { path: shown, size, totalLines: 0, startLine: 0, endLine: 0, scannedBytes, encoding },
      };
    }
    throw new ToolFailure(
      "InvalidInput",
      `offset ${limits.offset} is past the end of ${shown}, which has ${formatCount(total)} lines. Use an offset from 1 to ${total}.`,
    );
  }
  if (column !== undefined) return columnAnswer(pager.lines[0]!, column, shown, size, scannedBytes, encoding);
  const first = pager.lines[0]!.number;
  const last = pager.lines[pager.lines.length - 1]!.number;
  const more = wholeFile ? pager.linesSeen > last : true;
  const width = String(last).length;
  let cutLines = 0;
  const out: string[] = [];
  for (const line of pager.lines) {
    let text = line.text;
    if (line.fullLength !== undefined) {
      cutLines++;
      text += ` … [line cut: ${formatCount(line.fullLength)} chars; offset=${line.number} column=${settings.maxLineChars + 1} reads on]`;
    }
    out.push(`${String(line.number).padStart(width, " ")}\t${text}`);
  }
  const totalLines = wholeFile ? pager.linesSeen : undefined;
  if (more) {
    const of = totalLines === undefined ? `a ${formatCount(size)}-byte file` : `${formatCount(totalLines)}`;
    out.push("", `[Showing lines ${first}-${last} of ${of}. Use offset=${last + 1} to continue.]`);
  }
  if (cutLines > 0)
    out.push(`[${cutLines} line(s) longer than ${settings.maxLineChars} characters were cut.]`);
  return {
    content: out.join("\n"),
    details: {
      path: shown,
      size,
      startLine: first,
      endLine: last,
      ...(totalLines === undefined ? {} : { totalLines }),
      ...(more ? { nextOffset: last + 1 } : {}),
      ...(cutLines > 0 ? { cutLines } : {}),
      encoding,
      scannedBytes,
    },
  };
}

/** A part of one line, from `column` on, with where to continue when there is more of it. */
function columnAnswer(
  line: { readonly number: number; readonly text: string; readonly fullLength?: number },
  column: number,
  shown: string,
  size: number,
  scannedBytes: number,
  encoding: string,
): ToolOutput<ReadFileDetails> {
  const length = line.fullLength ?? line.text.length;
  if (column > length && !(column === 1 && length === 0)) {
    throw new ToolFailure(
      "InvalidInput",
      `column ${column} is past the end of line ${line.number} of ${shown}, which has ${formatCount(length)} characters`,
    );
  }
  const end = column - 1 + line.text.length;
  const more = end < length;
  const footer = more
    ? `[Line ${line.number}: characters ${column}-${end} of ${formatCount(length)}. Use offset=${line.number} column=${end + 1} to continue.]`
    : `[Line ${line.number}: characters ${column}-${end} of ${formatCount(length)}: the end of the line.]`;
  return {
    content: `${line.number}\t${line.text}\n\n${footer}`,
    details: {
      path: shown,
      size,
      startLine: line.number,
      endLine: line.number,
      ...(more ? { cutLines: 1 } : {}),
      encoding,
      scannedBytes,
    },
  };
}

/** Feed a large file to the pager chunk by chunk, stopping as soon as the page is full. */
async function pageLargeFile(
  handle: FileHandle,
  pager: LinePager,
  signal: AbortSignal,
): Promise<{ head: Uint8Array; scannedBytes: number; encoding: string }> {
  {
    const buffer = Buffer.alloc(STREAM_CHUNK_BYTES);
    let scannedBytes = 0;
    let head: Uint8Array | undefined;
    let decoder: TextDecoder | undefined;
    let encoding = "utf8";
    for (;;) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, scannedBytes);
      if (bytesRead === 0) break;
      let chunk = buffer.subarray(0, bytesRead);
      if (!head) {
        head = Uint8Array.from(chunk.subarray(0, 8_192));
        if (looksBinary(head)) return { head, scannedBytes: bytesRead, encoding: "binary" };
        const sniffed = sniffEncoding(head);
        encoding = sniffed.encoding;
        decoder = new TextDecoder(
          encoding === "utf16le" ? "utf-16le" : encoding === "utf16be" ? "utf-16be" : "utf-8",
        );
        chunk = chunk.subarray(sniffed.bomBytes);
      }
      scannedBytes += bytesRead;
      pager.push(decoder!.decode(chunk, { stream: true }));
      if (pager.full) return { head, scannedBytes, encoding };
    }
    if (decoder) pager.push(decoder.decode());
    pager.finish();
    return { head: head ?? new Uint8Array(), scannedBytes, encoding };
  }
}

const IMAGE_TYPES: readonly { kind: string; mediaType: string; test: (head: Uint8Array) => boolean }[] = [
  {
    kind: "PNG image",
    mediaType: "image/png",
    test: (h) => h[0] === 0x89 && h[1] === 0x50 && h[2] === 0x4e && h[3] === 0x47,
  },
  {
    kind: "JPEG image",
    mediaType: "image/jpeg",
    test: (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff,
  },
  { kind: "GIF image", mediaType: "image/gif", test: (h) => ascii(h, 0, 4) === "GIF8" },
  {
    kind: "WebP image",
    mediaType: "image/webp",
    test: (h) => ascii(h, 0, 4) === "RIFF" && ascii(h, 8, 12) === "WEBP",
  },
];

const OTHER_BINARIES: readonly { kind: string; test: (head: Uint8Array) => boolean }[] = [
  { kind: "PDF document", test: (h) => ascii(h, 0, 5) === "%PDF-" },
  {
    kind: "ZIP archive (or a format built on it: jar, docx, xlsx)",
    test: (h) => ascii(h, 0, 4) === "PK\u0003\u0004",
  },
  { kind: "gzip archive", test: (h) => h[0] === 0x1f && h[1] === 0x8b },
  { kind: "ELF executable", test: (h) => ascii(h, 0, 4) === "\u007fELF" },
  { kind: "WebAssembly module", test: (h) => ascii(h, 0, 4) === "\u0000asm" },
  { kind: "SQLite database", test: (h) => ascii(h, 0, 15) === "SQLite format 3" },
];

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}

async function binaryAnswer(
  handle: FileHandle,
  shown: string,
  head: Uint8Array,
  size: number,
): Promise<ToolOutput<ReadFileDetails>> {
  const image = IMAGE_TYPES.find((type) => type.test(head));
  if (image && size <= MAX_IMAGE_BYTES) {
    // Read at offset 0 from the opened file: a read above may have left the position at the end.
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    const data = buffer.subarray(0, bytesRead).toString("base64");
    const content: ToolResultContent[] = [
      { type: "text", text: `${shown} is a ${image.kind} (${formatCount(size)} bytes), shown below.` },
      { type: "image", mediaType: image.mediaType, data },
    ];
    return { content, details: { path: shown, size, scannedBytes: size, binary: { kind: image.kind } } };
  }
  const kind = image?.kind ?? OTHER_BINARIES.find((type) => type.test(head))?.kind ?? "binary file";
  return {
    content: `${shown} is a ${kind} (${formatCount(size)} bytes, not text); read_file shows text files only.`,
    details: { path: shown, size, scannedBytes: head.length, binary: { kind } },
  };
}
