import type { Dirent } from "node:fs";
import { open, readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { isErrno, isSecretPath, isWithin, ToolFailure } from "@bridle/core";
import type { Skill } from "./skill.js";
import { LOWERCASE_SKILL_FILE, SKILL_FILE } from "./validate-skill.js";

const UNLISTED = new Set(["node_modules", "__pycache__", ".git", ".venv", "venv"]);

export interface FileListing {
  /** Paths relative to the skill's folder, `/`-separated, sorted; folders end with `/` when not descended. */
  readonly files: readonly string[];
  /** More entries existed than were listed. */
  readonly truncated: boolean;
}

/** The files beside a SKILL.md: what the model may read or run. Symlinked folders are not descended. */
export async function listSkillFiles(
  skill: Skill,
  options: { readonly maxEntries?: number; readonly maxDepth?: number } = {},
): Promise<FileListing> {
  const maxEntries = options.maxEntries ?? 200;
  const maxDepth = options.maxDepth ?? 4;
  const files: string[] = [];
  let truncated = false;
  const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files.length >= maxEntries) {
        truncated = true;
        return;
      }
      const shown = `${prefix}${entry.name}`;
      if (depth === 0 && (entry.name === SKILL_FILE || entry.name === LOWERCASE_SKILL_FILE)) continue;
      if (UNLISTED.has(entry.name) || isSecretPath(join(dir, entry.name))) continue;
      if (entry.isDirectory()) {
        if (depth + 1 >= maxDepth) files.push(`${shown}/`);
        else await walk(join(dir, entry.name), `${shown}/`, depth + 1);
      } else files.push(shown);
    }
  };
  await walk(skill.dir, "", 0);
  return { files, truncated };
}

/**
 * Resolve a path the model gave, relative to the skill's folder, to a real file inside that folder.
 * `..`, absolute paths and symlinks that lead out are all refused (`Denied`), whatever the file holds.
 */
export async function resolveInSkill(skill: Skill, path: string): Promise<string> {
  if (typeof path !== "string" || path.trim() === "") throw new ToolFailure("InvalidInput", "file is empty");
  if (path.includes("\0")) throw new ToolFailure("InvalidInput", "file contains a NUL byte");
  const root = await realpath(skill.dir).catch(() => resolve(skill.dir));
  const lexical = resolve(skill.dir, path);
  if (isAbsolute(path) || !isWithin(resolve(skill.dir), lexical)) {
    throw new ToolFailure("Denied", `${path} is outside the skill ${skill.name}'s folder`);
  }
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) {
      throw new ToolFailure("NotFound", `${path}: no such file in the skill ${skill.name}`);
    }
    throw error;
  }
  if (!isWithin(root, real)) {
    throw new ToolFailure("Denied", `${path} leads outside the skill ${skill.name}'s folder (a symlink)`);
  }
  if (isSecretPath(real)) {
    throw new ToolFailure(
      "Denied",
      `${path} looks like a secret (credentials, keys, .env); access is denied`,
    );
  }
  return real;
}

export interface FileSlice {
  readonly text: string;
  readonly totalBytes: number;
  /** First line shown (1-based) and the line to continue from, when there is more. */
  readonly startLine: number;
  readonly nextLine: number | undefined;
  readonly binary: boolean;
}

export interface ReadBounds {
  /** 1-based line to start from (default 1). */
  readonly offset?: number | undefined;
  /** Lines at most (default 2000). */
  readonly limit?: number | undefined;
  /** Bytes of text returned at most (default 64 KiB). */
  readonly maxBytes?: number | undefined;
}

// Bytes read from disk at most, whatever the offset: a skill's text files are small, a huge one is a mistake.
const MAX_SCAN_BYTES = 8 * 1024 * 1024;

/** Read part of a text file: bounded in lines and bytes, with where to continue. */
export async function readSlice(real: string, bounds: ReadBounds = {}): Promise<FileSlice> {
  const info = await stat(real);
  if (info.isDirectory()) throw new ToolFailure("InvalidInput", "that is a folder; name a file in it");
  const handle = await open(real, "r");
  let buffer: Buffer;
  try {
    buffer = Buffer.alloc(Math.min(info.size, MAX_SCAN_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    buffer = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const startLine = Math.max(1, bounds.offset ?? 1);
  if (buffer.subarray(0, 8192).includes(0)) {
    return { text: "", totalBytes: info.size, startLine, nextLine: undefined, binary: true };
  }
  const slice = sliceLines(buffer.toString("utf8"), bounds);
  return { ...slice, totalBytes: info.size, startLine, binary: false };
}

/** Lines `offset`.. of a text, at most `limit` lines and `maxBytes` bytes, and the line to continue from. */
export function sliceLines(
  text: string,
  bounds: ReadBounds = {},
): { text: string; nextLine: number | undefined } {
  const limit = bounds.limit ?? 2000;
  const maxBytes = bounds.maxBytes ?? 64 * 1024;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const kept: string[] = [];
  let bytes = 0;
  let index = Math.max(1, bounds.offset ?? 1) - 1;
  for (; index < lines.length && kept.length < limit; index++) {
    const line = lines[index] as string;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes && kept.length > 0) break;
    kept.push(size > maxBytes ? `${line.slice(0, maxBytes)}… [line cut]` : line);
    bytes += size;
  }
  return { text: kept.join("\n"), nextLine: index < lines.length ? index + 1 : undefined };
}
