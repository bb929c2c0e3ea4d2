import { lstat, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { type FileDiff, fileDiff, isErrno, ToolFailure, Workspace } from "@bridle/core";
import {
  type CurrentFile,
  decodeText,
  encodeText,
  FileTracker,
  looksBinary,
  sameContent,
  snapshotOf,
} from "@bridle/tools-fs";
import { applyChunks } from "./apply-chunks.js";
import { type CommitOptions, type CommitStep, commitAll, type FileOwner } from "./commit.js";
import { type LockedFile, withLockedFiles } from "./locked-files.js";
import { type FileOperation, parsePatch } from "./parse.js";
import { resolveExistingFile, resolveNewFile } from "./resolve.js";
import { describeTolerance, type Tolerance } from "./tolerance.js";

export interface ApplyPatchOptions {
  /** The folder the patch's paths are relative to; nothing outside it is touched. */
  readonly root: string;
  /** Let the patch touch secret-like paths (.env, keys, credentials). Off by default. */
  readonly allowSecrets?: boolean;
  /** Largest file (in bytes) the patch may update. Default 16 MiB. */
  readonly maxFileBytes?: number;
  readonly signal?: AbortSignal;
}

export interface PatchedFile {
  /** The path as the workspace shows it (relative to the root). */
  readonly path: string;
  readonly action: "added" | "updated" | "deleted" | "moved";
  /** For a move: where the file was. */
  readonly from?: string;
  readonly linesAdded: number;
  readonly linesRemoved: number;
}

export interface ApplyPatchResult {
  /** Every file the patch changed, in patch order. */
  readonly files: readonly PatchedFile[];
  /** Each file's change as a line diff, in patch order, for front doors to draw. */
  readonly diffs: readonly FileDiff[];
  /** Each slip in the patch that was forgiven. */
  readonly tolerances: readonly Tolerance[];
  /** What the apply_patch tool tells the model. */
  readonly summary: string;
}

/** Parses a V4A patch and applies it under `options.root`, all or nothing. */
export async function applyPatch(patch: string, options: ApplyPatchOptions): Promise<ApplyPatchResult> {
  const workspace = new Workspace({ roots: [options.root], allowSecrets: options.allowSecrets ?? false });
  return runPatch(patch, {
    workspace,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;
const MAX_FILES_PER_PATCH = 256;

export interface PatchContext {
  readonly workspace: Workspace;
  readonly maxFileBytes: number;
  readonly signal?: AbortSignal;
  /** The read-before-write rule: updating or deleting a file this run has not read is a Conflict. */
  readonly readGuard?: { readonly tracker: FileTracker; readonly runId: string };
  /** Test seam: called before each commit step. */
  readonly beforeStep?: CommitOptions["beforeStep"];
}

interface Target {
  readonly operation: FileOperation;
  readonly real: string;
  readonly shown: string;
  readonly destination?: { readonly real: string; readonly shown: string };
}

export async function runPatch(patch: string, context: PatchContext): Promise<ApplyPatchResult> {
  const { workspace } = context;
  const parsed = parsePatch(patch);
  if (parsed.operations.length > MAX_FILES_PER_PATCH) {
    // Each file is held open and locked until the commit: a bound keeps that within any descriptor limit.
    throw new ToolFailure(
      "InvalidInput",
      `apply_patch: nothing was changed. The patch changes ${parsed.operations.length} files, more than the ${MAX_FILES_PER_PATCH} one patch may; split it.`,
    );
  }
  const tolerances = [...parsed.tolerances];
  const targets: Target[] = [];
  for (const operation of parsed.operations) {
    if (operation.kind === "add") {
      const real = await resolveNewFile(workspace, operation.path);
      targets.push({ operation, real, shown: workspace.display(real) });
    } else {
      const real = await resolveExistingFile(
        workspace,
        operation.path,
        operation.kind === "delete" || (operation.kind === "update" && operation.moveTo !== undefined),
      );
      const moveTo = operation.kind === "update" ? operation.moveTo : undefined;
      const destination = moveTo === undefined ? undefined : await resolveNewFile(workspace, moveTo);
      targets.push({
        operation,
        real,
        shown: workspace.display(real),
        ...(destination === undefined
          ? {}
          : { destination: { real: destination, shown: workspace.display(destination) } }),
      });
    }
  }
  const owners = new Map<string, string>();
  for (const target of targets) {
    for (const path of [target.real, target.destination?.real]) {
      if (path === undefined) continue;
      const other = owners.get(path);
      if (other !== undefined) {
        throw new ToolFailure(
          "InvalidInput",
          `apply_patch: nothing was changed. The patch touches ${workspace.display(path)} twice (patch lines ${other} and ${target.operation.patchLine}); put every change to a file in one section.`,
        );
      }
      owners.set(path, String(target.operation.patchLine));
    }
  }
  const requests = targets
    .filter((target) => target.operation.kind !== "add")
    .map((target) => ({ real: target.real, requireBytes: target.operation.kind === "update" }));
  // An Add over an existing file, or a Move onto one, replaces it (as Codex does) when the run has read it:
  // it is locked and checked like a file the patch updates.
  for (const target of targets) {
    const { operation } = target;
    const replaced = operation.kind === "add" ? target.real : target.destination?.real;
    const named =
      operation.kind === "add"
        ? operation.path
        : target.destination && operation.kind === "update"
          ? operation.moveTo
          : undefined;
    if (replaced === undefined || named === undefined) continue;
    // Checked as written: the policy resolved a link to the file it points at, which is not what is named.
    if ((await lstat(resolve(workspace.root, named)).catch(() => undefined))?.isSymbolicLink()) {
      throw new ToolFailure(
        "InvalidInput",
        `apply_patch: nothing was changed. ${named} is a symbolic link; apply_patch does not replace links.`,
      );
    }
    if (await existingFile(replaced, workspace.display(replaced))) {
      requests.push({ real: replaced, requireBytes: false });
    }
  }
  const settings = {
    maxBytes: context.maxFileBytes,
    // Without a run (the bare engine) nothing is remembered anywhere that matters.
    tracker: context.readGuard?.tracker ?? new FileTracker(),
    runId: context.readGuard?.runId ?? "apply-patch",
    ...(context.signal ? { signal: context.signal } : {}),
  };
  const result = await withLockedFiles(workspace, requests, settings, (locked) =>
    planAndCommit(targets, locked, tolerances, context),
  );
  if (context.readGuard) {
    // The run now knows what it wrote, so it may patch the same files again without reading them back.
    for (const written of result.written) {
      const stats = await stat(written.real, { bigint: true });
      context.readGuard.tracker.remember(
        context.readGuard.runId,
        written.real,
        snapshotOf(stats, written.bytes),
      );
    }
  }
  return result.result;
}

async function planAndCommit(
  targets: readonly Target[],
  locked: ReadonlyMap<string, LockedFile>,
  tolerances: Tolerance[],
  context: PatchContext,
): Promise<{ result: ApplyPatchResult; written: readonly { real: string; bytes: Uint8Array }[] }> {
  const { workspace, readGuard, signal } = context;
  const writes: CommitStep[] = [];
  const removes: CommitStep[] = [];
  const files: PatchedFile[] = [];
  const diffs: FileDiff[] = [];
  for (const target of targets) {
    const { operation, real, shown } = target;
    if (operation.kind === "add") {
      const replaced = await replaceable(real, shown, locked, readGuard, `patch line ${operation.patchLine}`);
      const text = operation.lines.length === 0 ? "" : `${operation.lines.join("\n")}\n`;
      writes.push({
        kind: "write",
        target: real,
        bytes: Buffer.from(text, "utf8"),
        ...(replaced ? { expected: replaced.snapshot, like: await ownerOf(real) } : {}),
      });
      files.push({ path: shown, action: "added", linesAdded: operation.lines.length, linesRemoved: 0 });
      diffs.push(fileDiff(shown, "", text, { change: "add" }));
      continue;
    }
    const current = locked.get(real)?.current;
    if (!current)
      throw new ToolFailure("NotFound", `apply_patch: nothing was changed. ${shown}: no such file`);
    readGuard?.tracker.assertUnchanged(readGuard.runId, real, current.snapshot, shown);
    const owner = await ownerOf(real);
    if (operation.kind === "delete") {
      removes.push({ kind: "remove", target: real, expected: current.snapshot });
      files.push({ path: shown, action: "deleted", linesAdded: 0, linesRemoved: 0 });
      const gone = current.bytes && !looksBinary(current.bytes) ? decodeText(current.bytes).text : "";
      diffs.push(fileDiff(shown, gone, "", { change: "delete" }));
      continue;
    }
    const bytes = current.bytes as Buffer;
    if (looksBinary(bytes)) {
      throw new ToolFailure(
        "InvalidInput",
        `apply_patch: nothing was changed. ${shown} is a binary file; apply_patch changes text files only.`,
      );
    }
    const { text, format } = decodeText(bytes);
    const lines = splitLines(text, format.eol);
    const updated =
      operation.chunks.length === 0 ? lines : applyChunks(shown, lines, operation.chunks, tolerances);
    const newText = joinLines(updated, format.eol, format.finalNewline || lines.length === 0);
    const newBytes = encodeText(newText, format);
    let added = 0;
    let removed = 0;
    for (const chunk of operation.chunks) {
      for (const line of chunk.lines) {
        if (line.kind === "+") added++;
        else if (line.kind === "-") removed++;
      }
    }
    if (target.destination) {
      const destination = target.destination;
      const replaced = await replaceable(
        destination.real,
        destination.shown,
        locked,
        readGuard,
        `the move of ${shown}, patch line ${operation.patchLine}`,
      );
      writes.push({
        kind: "write",
        target: destination.real,
        bytes: newBytes,
        like: owner,
        ...(replaced ? { expected: replaced.snapshot } : {}),
      });
      removes.push({ kind: "remove", target: real, expected: current.snapshot });
      diffs.push(fileDiff(shown, text, newText, { movedTo: destination.shown }));
      files.push({
        path: destination.shown,
        action: "moved",
        from: shown,
        linesAdded: added,
        linesRemoved: removed,
      });
    } else {
      writes.push({ kind: "write", target: real, bytes: newBytes, like: owner, expected: current.snapshot });
      files.push({ path: shown, action: "updated", linesAdded: added, linesRemoved: removed });
      diffs.push(fileDiff(shown, text, newText));
    }
  }
  signal?.throwIfAborted();
  await commitAll([...writes, ...removes], {
    display: (path) => workspace.display(path),
    ...(context.beforeStep ? { beforeStep: context.beforeStep } : {}),
  });
  const written = writes.flatMap((step) =>
    step.kind === "write" ? [{ real: step.target, bytes: step.bytes }] : [],
  );
  return { result: { files, diffs, tolerances, summary: summarize(files, tolerances) }, written };
}

/**
 * Whether a path an Add or a Move would write holds a file already. Only a regular file may be replaced:
 * a folder or a symbolic link there is refused (replacing a link would write the file it points at).
 */
async function existingFile(path: string, shown: string): Promise<boolean> {
  const stats = await lstat(path).catch((error: unknown) => {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  });
  if (stats === undefined) return false;
  if (stats.isFile()) return true;
  throw new ToolFailure(
    "InvalidInput",
    `apply_patch: nothing was changed. ${shown} already exists and is ${stats.isDirectory() ? "a folder" : "not a regular file"}; apply_patch replaces only files.`,
  );
}

/**
 * The file an Add or a Move would replace, when it may be replaced: this run read it and it has not
 * changed since. Undefined when nothing is there. Otherwise the whole patch is refused, saying why.
 */
async function replaceable(
  real: string,
  shown: string,
  locked: ReadonlyMap<string, LockedFile>,
  readGuard: PatchContext["readGuard"],
  where: string,
): Promise<CurrentFile | undefined> {
  const current = locked.get(real)?.current;
  // Checked again under the lock: a file that appeared since the first look is judged like any other.
  if (current === undefined) {
    if (await existingFile(real, shown)) {
      throw new ToolFailure(
        "Conflict",
        `apply_patch: nothing was changed. ${shown} appeared while the patch was being applied (${where}); read it, then retry.`,
      );
    }
    return undefined;
  }
  const seen = readGuard?.tracker.lastSeen(readGuard.runId, real);
  if (seen === undefined) {
    throw new ToolFailure(
      "Conflict",
      `apply_patch: nothing was changed. ${shown} already exists (${where}) and has not been read in this run, so it is not replaced. Read it first if the patch should replace it, or change it with "*** Update File: ${shown}".`,
    );
  }
  if (!sameContent(seen, current.snapshot)) {
    throw new ToolFailure(
      "Conflict",
      `apply_patch: nothing was changed. ${shown} already exists (${where}) and changed on disk since this run read it, so it is not replaced. Read it again, then retry.`,
    );
  }
  return current;
}

async function ownerOf(path: string): Promise<FileOwner> {
  const stats = await stat(path);
  return { mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid };
}

/** The file's lines without their breaks; a CRLF file's lines lose their CR, to be given back on join. */
export function splitLines(text: string, eol: "lf" | "crlf"): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return eol === "crlf" ? lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line)) : lines;
}

export function joinLines(lines: readonly string[], eol: "lf" | "crlf", finalNewline: boolean): string {
  if (lines.length === 0) return "";
  const breakText = eol === "crlf" ? "\r\n" : "\n";
  return lines.join(breakText) + (finalNewline ? breakText : "");
}

const LETTER: Record<PatchedFile["action"], string> = { added: "A", updated: "M", deleted: "D", moved: "M" };

function summarize(files: readonly PatchedFile[], tolerances: readonly Tolerance[]): string {
  const out = ["Success. Updated the following files:"];
  for (const file of files) {
    out.push(
      `${LETTER[file.action]} ${file.path}${file.from === undefined ? "" : ` (moved from ${file.from})`}`,
    );
  }
  if (tolerances.length > 0) {
    out.push("", "Applied with these slips forgiven (write the exact format next time):");
    for (const tolerance of tolerances.slice(0, 10)) out.push(`- ${describeTolerance(tolerance)}`);
    if (tolerances.length > 10) out.push(`- … and ${tolerances.length - 10} more`);
  }
  return out.join("\n");
}
