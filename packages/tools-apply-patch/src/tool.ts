import { defineTool, type FileDiff, type Tool, type ToolOutput } from "@bridle/core";
import { FileTracker, wholeToolScope } from "@bridle/tools-fs";
import { z } from "zod";
import { DEFAULT_MAX_FILE_BYTES, type PatchedFile, runPatch } from "./engine.js";
import { APPLY_PATCH_LARK_GRAMMAR } from "./grammar.js";
import { type FileOperation, parsePatch } from "./parse.js";
import type { Tolerance } from "./tolerance.js";

export interface ApplyPatchToolOptions {
  /**
   * The read-before-write memory. Pass the fs toolkit's (`createFsTools().tracker`) so a read_file in
   * the run lets the patch change that file. Default: a tracker of its own (then only files this tool
   * wrote in the run may be changed).
   */
  readonly tracker?: FileTracker;
  /** Largest file (in bytes) a patch may update. Default 16 MiB. */
  readonly maxFileBytes?: number;
  /** Longest patch accepted, in characters. Default 16 MiB. */
  readonly maxPatchChars?: number;
  /**
   * "json" (default): arguments `{ input: patch }`, for every provider. "freeform": the same tool also
   * declares the patch grammar as core's `format`, so a provider with free-form tools (OpenAI Responses
   * custom tools) has the model write the raw patch; other providers still send `{ input }`.
   */
  readonly form?: "json" | "freeform";
}

export interface ApplyPatchDetails {
  readonly files: readonly PatchedFile[];
  /** Each file's change as a line diff, for front doors to draw. */
  readonly diffs: readonly FileDiff[];
  readonly tolerances: readonly Tolerance[];
}

const FORMAT = `Patch format (V4A):
*** Begin Patch
*** Add File: path/new.txt
+every line of the new file starts with +
*** Delete File: path/old.txt
*** Update File: path/file.py
*** Move to: path/renamed.py   (optional)
@@ def greet():                (an @@ line; its text, if any, names a line above the change)
 context line (starts with a space), about 3 before and 3 after each change
-removed line
+added line
*** End of File                (optional: the chunk ends at the end of the file)
*** End Patch
Paths are relative to the workspace. Chunks of a file go top to bottom. Lines that only add need an @@ line or context to say where.
The whole patch applies or nothing does: an error names the file, the chunk and the closest lines.`;

/** The arguments both forms take: the patch, as one string. */
export type ApplyPatchSchema = z.ZodObject<{ input: z.ZodString }>;

function inputSchema(maxPatchChars: number): ApplyPatchSchema {
  return z.object({
    input: z
      .string()
      .max(
        maxPatchChars,
        `the patch is longer than ${maxPatchChars} characters; split it into several patches`,
      )
      .describe("The whole patch, from *** Begin Patch to *** End Patch"),
  });
}

export type ApplyPatchTool = Tool<ApplyPatchSchema, ApplyPatchDetails>;

/**
 * apply_patch: adds, deletes, updates and moves files with one V4A patch, checked in full before any
 * file is written. Updating or deleting a file the run has not read (or that changed since) is a Conflict.
 */
export function createApplyPatchTool(options: ApplyPatchToolOptions = {}): ApplyPatchTool {
  const tracker = options.tracker ?? new FileTracker();
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const maxPatchChars = options.maxPatchChars ?? 16 * 1024 * 1024;
  const freeform = options.form === "freeform";
  return defineTool({
    name: "apply_patch",
    // One text for both forms: a provider that offers free-form input sends the grammar, any other the
    // JSON Schema, and the model sees the same words either way.
    description: `Edit files with one patch. Read a file in this run before updating or deleting it.\n${FORMAT}`,
    inputSchema: inputSchema(maxPatchChars),
    // Core's free-form input: the raw patch arrives as `{ input }` whichever way the provider sent it.
    ...(freeform
      ? { format: { type: "grammar", syntax: "lark", definition: APPLY_PATCH_LARK_GRAMMAR } }
      : {}),
    annotations: { destructive: true },
    sequential: true,
    approvalScope: (args) => wholeToolScope("apply_patch", patchWrites(args.input)),
    async execute(args, ctx): Promise<ToolOutput<ApplyPatchDetails>> {
      const result = await runPatch(args.input, {
        workspace: ctx.workspace,
        maxFileBytes,
        signal: ctx.signal,
        readGuard: { tracker, runId: ctx.runId },
      });
      return {
        content: result.summary,
        details: { files: result.files, diffs: result.diffs, tolerances: result.tolerances },
      };
    },
  });
}

// Files a prompt names before it counts the rest: the question stays one short line.
const NAMED_FILES = 3;

/** What a patch writes, as an approval says it: "updates src/a.ts, adds b.ts and 2 more files". */
function patchWrites(patch: string): string {
  let operations: readonly FileOperation[];
  try {
    operations = parsePatch(patch).operations;
  } catch {
    // A patch that does not parse fails whole when it runs; nothing is written.
    return "applies a patch that does not parse (it writes nothing)";
  }
  if (operations.length === 0) return "applies an empty patch";
  const said = operations.slice(0, NAMED_FILES).map((operation) => {
    if (operation.kind === "add") return `adds ${operation.path}`;
    if (operation.kind === "delete") return `deletes ${operation.path}`;
    return operation.moveTo ? `moves ${operation.path} to ${operation.moveTo}` : `updates ${operation.path}`;
  });
  const more = operations.length - said.length;
  return `${said.join(", ")}${more > 0 ? ` and ${more} more file${more === 1 ? "" : "s"}` : ""}`;
}
