// Which tool calls are edits, read from their arguments' shape rather than a list of tool names, so the
// profiles' renamed tools (Edit, Write, apply_patch) and contributed tools with the same shape all show
// their diff. The result's details win when they carry the applied hunks (edit_file's, with line numbers).
import { fileDiffsOf } from "@bridle/core";
import { hashlineEditOf, ShownLines } from "./hashline-edits.js";
import type { EditView, UnshownFile } from "./view.js";

type Json = Record<string, unknown>;

const str = (value: unknown): value is string => typeof value === "string";

function pathOf(args: Json): string {
  for (const key of ["path", "file_path", "filePath", "file"]) {
    const value = args[key];
    if (str(value)) return value;
  }
  return "";
}

function hunksOfDetails(details: unknown): { line?: number; old: string; new: string }[] | undefined {
  if (details === null || typeof details !== "object") return undefined;
  const hunks = (details as { hunks?: unknown }).hunks;
  if (!Array.isArray(hunks) || hunks.length === 0) return undefined;
  const out: { line?: number; old: string; new: string }[] = [];
  for (const hunk of hunks) {
    if (hunk === null || typeof hunk !== "object") return undefined;
    const { line, oldText, newText } = hunk as { line?: unknown; oldText?: unknown; newText?: unknown };
    if (!str(oldText) || !str(newText)) return undefined;
    out.push({ ...(typeof line === "number" ? { line } : {}), old: oldText, new: newText });
  }
  return out;
}

/**
 * A command's `details.changed_files` beside its diffs (@bridle/coding's CommandChanges): the files named
 * without their lines, and how many more changed than are drawn or named. Undefined when it has neither.
 */
function commandChanges(
  details: unknown,
  drawn: number,
): { unshown?: UnshownFile[]; more?: number } | undefined {
  if (details === null || typeof details !== "object") return undefined;
  const changed = (details as { changed_files?: unknown }).changed_files;
  if (changed === null || typeof changed !== "object") return undefined;
  const { count, unshown } = changed as { count?: unknown; unshown?: unknown };
  const named: UnshownFile[] = [];
  for (const item of Array.isArray(unshown) ? unshown : []) {
    const { path, change, reason } = (item ?? {}) as Record<string, unknown>;
    if (str(path) && str(change) && str(reason)) named.push({ path, change, reason });
  }
  const more = typeof count === "number" ? Math.max(0, count - drawn - named.length) : 0;
  if (named.length === 0 && more === 0) return undefined;
  return { ...(named.length > 0 ? { unshown: named } : {}), ...(more > 0 ? { more } : {}) };
}

/** The path a call's result names (the tools' `details.path`, as they show it), else its arguments'. */
export function resultPath(rawArguments: string, details: unknown): string {
  if (details !== null && typeof details === "object") {
    const path = (details as { path?: unknown }).path;
    if (str(path)) return path;
  }
  try {
    const args = JSON.parse(rawArguments) as unknown;
    return args !== null && typeof args === "object" && !Array.isArray(args) ? pathOf(args as Json) : "";
  } catch {
    return "";
  }
}

/**
 * The edit a call describes, or undefined when it is not one. `rawArguments` is the model's JSON text;
 * `shown` is what the session's reads showed so far, which hashline edits are drawn from.
 */
export function editOf(
  rawArguments: string,
  details: unknown,
  shown: ShownLines = new ShownLines(),
): EditView | undefined {
  // What the tool applied beats what the arguments asked for: every edit tool reports it the same way.
  const files = fileDiffsOf(details);
  const command = commandChanges(details, files.length);
  if (files.length > 0 || command) return { kind: "files", files, ...command };
  if (rawArguments.trimStart().startsWith("*** Begin Patch")) return { kind: "patch", text: rawArguments };
  let args: unknown;
  try {
    args = JSON.parse(rawArguments);
  } catch {
    return undefined;
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  const a = args as Json;
  for (const key of ["input", "patch"]) {
    const value = a[key];
    if (str(value) && value.trimStart().startsWith("*** Begin Patch")) return { kind: "patch", text: value };
  }
  const path = pathOf(a);
  const fromDetails = hunksOfDetails(details);
  if (fromDetails) return { kind: "replace", path, hunks: fromDetails };
  if (str(a.old_string) && str(a.new_string)) {
    return { kind: "replace", path, hunks: [{ old: a.old_string, new: a.new_string }] };
  }
  if (Array.isArray(a.edits)) {
    const hunks = a.edits.flatMap((edit: unknown) => {
      const e = (edit ?? {}) as Json;
      return str(e.old_string) && str(e.new_string) ? [{ old: e.old_string, new: e.new_string }] : [];
    });
    if (hunks.length > 0) return { kind: "replace", path, hunks };
    const hashline = hashlineEditOf(a, resultPath(rawArguments, details), shown);
    if (hashline) return hashline;
  }
  if (path && str(a.content)) return { kind: "write", path, content: a.content };
  return undefined;
}
