// Edits shown as diffs: the files an edit call names are read just before it runs and again once it has
// run. "Just before" is exact: the harness awaits the run's sink before a call executes, and this reads
// in the sink (see EditDiffs.sink), so no edit can land between the read and the call. A replayed session
// and a shell command have no before-images: their diffs come from what the result stored (`details.diffs`).
import { lstat } from "node:fs/promises";
import { relative, resolve } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import {
  type EventSink,
  fileDiffsOf,
  isWithin,
  protectedPathReason,
  type RunEvent,
  type ToolResultMessage,
} from "@bridle/core";
import { readRegularFile } from "@bridle/core/node";
import { parsedArguments, toolKind, toolPaths } from "./tool-view.js";

/** Files larger than this are not shown as diffs (an editor would not render them usefully either). */
const MAX_DIFF_BYTES = 512 * 1024;

export class EditDiffs {
  readonly #cwd: string;
  /** Before-images by call id: each file's text, or null when it did not exist. */
  readonly #before = new Map<string, Map<string, string | null>>();

  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** The run's sink, reading before-images of edit calls as they are recorded (before they execute). */
  sink(inner: EventSink): EventSink {
    const capture = (event: RunEvent) => this.#capture(event);
    return {
      async write(event) {
        await capture(event);
        await inner.write(event);
      },
      ...(inner.writeBatch
        ? {
            writeBatch: async (batch: readonly RunEvent[]) => {
              for (const event of batch) await capture(event);
              await inner.writeBatch?.(batch);
            },
          }
        : {}),
    };
  }

  /**
   * The diffs of a completed call, for the files that changed. A call with no before-images (a shell
   * command, whose files are not known before it runs) shows what its result recorded: the recipe gives
   * a command's result the diffs of the files it changed.
   */
  async after(result: ToolResultMessage): Promise<ToolCallContent[]> {
    const before = this.#before.get(result.toolCallId);
    this.#before.delete(result.toolCallId);
    if (!before) return storedDiffs(result, this.#cwd);
    const diffs: ToolCallContent[] = [];
    for (const [path, oldText] of before) {
      const newText = await readSmall(path);
      if (newText === oldText) continue;
      diffs.push({ type: "diff", path, oldText, newText: newText ?? "" });
    }
    return diffs;
  }

  async #capture(event: RunEvent): Promise<void> {
    if (event.type !== "tool_call_requested" || toolKind(event.toolCall.name) !== "edit") return;
    const paths = toolPaths(event.toolCall.name, parsedArguments(event.toolCall.arguments), this.#cwd).filter(
      (path) => shown(this.#cwd, path),
    );
    if (paths.length === 0) return;
    const images = new Map<string, string | null>();
    for (const path of paths) images.set(path, await readSmall(path));
    this.#before.set(event.toolCall.id, images);
  }
}

/** Only workspace files, and never a secret's content on its way to the editor. */
function shown(cwd: string, path: string): boolean {
  return isWithin(cwd, path) && protectedPathReason(relative(cwd, path)) === undefined;
}

/**
 * A stored edit result's diffs, for a replayed session: one diff per changed place, its removed lines
 * against its added ones (the result keeps changed lines only, not the whole file).
 */
export function storedDiffs(result: ToolResultMessage, cwd: string): ToolCallContent[] {
  if (result.isError) return [];
  const diffs: ToolCallContent[] = [];
  for (const file of fileDiffsOf(result.details)) {
    const path = resolve(cwd, file.movedTo ?? file.path);
    if (!shown(cwd, path)) continue;
    for (const hunk of file.hunks) {
      diffs.push({
        type: "diff",
        path,
        oldText: file.change === "add" ? null : hunk.removed.join("\n"),
        newText: hunk.added.join("\n"),
      });
    }
  }
  return diffs;
}

/**
 * A text file's content; null when it does not exist, is a link, is not a regular file (a FIFO is never
 * waited on) or is too large to show. Core's bounded read does the reading.
 */
async function readSmall(path: string): Promise<string | null> {
  try {
    // A link is not followed: its target may lie outside the workspace, which the editor must not be sent.
    if ((await lstat(path)).isSymbolicLink()) return null;
    return (await readRegularFile(path, MAX_DIFF_BYTES)).bytes.toString("utf8");
  } catch {
    return null;
  }
}
