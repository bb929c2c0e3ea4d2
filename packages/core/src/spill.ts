import { mkdir, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { errorMessage } from "./errors.js";
import type { ToolResultContent, ToolResultMessage } from "./messages.js";
import type { Workspace } from "./workspace.js";

export interface SpillSettings {
  /** Characters of text a tool result may give the model before it is spilled. */
  readonly maxChars: number;
  /** Characters of the start and of the end the model still sees. */
  readonly headChars: number;
  readonly tailChars: number;
  /** Folder for spill files, relative to the workspace root unless absolute. */
  readonly dir: string;
}

export const DEFAULT_SPILL: SpillSettings = {
  maxChars: 100_000,
  headChars: 10_000,
  tailChars: 5_000,
  dir: join(".bridle", "tool-output"),
};

/** What the details of a spilled result carry (besides the tool's own details, under `details`). */
export interface SpillDetails {
  readonly spilled: {
    /** Where the full text is, as the model was told it (workspace-relative when inside). */
    readonly path: string;
    readonly chars: number;
    /** Set when the file could not be written: the model only got the preview. */
    readonly error?: string;
  };
  readonly details?: unknown;
}

/**
 * A result whose text passes the limit, with its text written to a file and replaced by the head, the tail
 * and the file's path. Results within the limit come back unchanged. Images are kept as they are.
 */
export async function spillResult(
  result: ToolResultMessage,
  runId: string,
  workspace: Workspace,
  settings: SpillSettings,
): Promise<ToolResultMessage> {
  let chars = 0;
  for (const part of result.content) if (part.type === "text") chars += part.text.length;
  if (chars <= settings.maxChars) return result;
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  const folder = isAbsolute(settings.dir) ? settings.dir : join(workspace.root, settings.dir);
  const file = join(folder, safeName(runId), `${safeName(result.toolCallId)}.txt`);
  const shown = workspace.display(file);
  let error: string | undefined;
  try {
    await mkdir(join(folder, safeName(runId)), { recursive: true });
    await writeFile(file, text);
  } catch (cause) {
    error = errorMessage(cause);
  }
  const head = text.slice(0, settings.headChars);
  const tail = text.slice(Math.max(settings.headChars, text.length - settings.tailChars));
  const omitted = text.length - head.length - tail.length;
  const where =
    error === undefined
      ? `the full output is in ${shown}; read it in parts with file tools, or search it, instead of asking for all of it`
      : `the full output could not be saved (${error})`;
  const marker = `\n\n[… ${omitted} of ${text.length} characters omitted: ${where} …]\n\n`;
  const images = result.content.filter((part) => part.type !== "text");
  const content: ToolResultContent[] = [{ type: "text", text: `${head}${marker}${tail}` }, ...images];
  const details: SpillDetails = {
    spilled: { path: shown, chars: text.length, ...(error === undefined ? {} : { error }) },
    ...(result.details === undefined ? {} : { details: result.details }),
  };
  return { ...result, content, details };
}

function safeName(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_");
  return cleaned === "" ? "_" : cleaned.slice(0, 120);
}
