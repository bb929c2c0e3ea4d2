// How a Bridle tool call looks to an ACP client: its kind (the editor's icon and grouping), a title, and the
// files it touches (the editor follows them). Tool names differ per profile (read_file, Read, shell, Bash…):
// they are listed here once, by what the tool does.
import { isAbsolute, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { oneLine } from "../terminal/display-text.js";

const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: "read",
  read: "read",
  write_file: "edit",
  write: "edit",
  edit_file: "edit",
  edit: "edit",
  multiedit: "edit",
  apply_patch: "edit",
  list_dir: "search",
  glob: "search",
  grep: "search",
  grep_files: "search",
  memory_search: "search",
  session_search: "search",
  bash: "execute",
  shell: "execute",
  run_check: "execute",
  update_plan: "think",
  todowrite: "think",
  fetch: "fetch",
  web_fetch: "fetch",
};

export function toolKind(name: string): ToolKind {
  return KINDS[name.toLowerCase()] ?? "other";
}

/** The call's arguments as an object, or an empty one when the model's JSON does not parse. */
export function parsedArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

// apply_patch names its files in its envelope's headers: `*** Update File: src/a.ts`, `*** Move to: …`.
const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

/** The workspace files a call names, absolute (ACP paths are absolute). */
export function toolPaths(name: string, args: Record<string, unknown>, cwd: string): string[] {
  const found: string[] = [];
  for (const key of ["path", "file_path", "dir_path"]) {
    const value = args[key];
    if (typeof value === "string" && value !== "") found.push(value);
  }
  if (name === "apply_patch" && typeof args.input === "string") {
    for (const match of args.input.matchAll(PATCH_FILE)) found.push((match[1] ?? "").trim());
  }
  return [...new Set(found.map((path) => (isAbsolute(path) ? path : resolve(cwd, path))))];
}

export function toolLocations(paths: readonly string[]): ToolCallLocation[] {
  return paths.map((path) => ({ path }));
}

/** A short title: the command for a shell, the verb and file for file tools, else the tool's name. */
export function toolTitle(name: string, args: Record<string, unknown>, paths: readonly string[]): string {
  const kind = toolKind(name);
  if (kind === "execute" && typeof args.command === "string") return oneLine(args.command, 200);
  if (kind === "execute" && Array.isArray(args.command)) return oneLine(args.command.join(" "), 200);
  const first = paths[0];
  if (first !== undefined) {
    const verb = kind === "read" ? "Read" : kind === "edit" ? "Edit" : kind === "search" ? "Search" : name;
    const more = paths.length > 1 ? ` (+${paths.length - 1})` : "";
    return `${verb} ${oneLine(first, 200)}${more}`;
  }
  if (kind === "search" && typeof args.pattern === "string") return `Search ${oneLine(args.pattern, 120)}`;
  if (name === "update_plan") return "Update the plan";
  return oneLine(name, 80);
}
