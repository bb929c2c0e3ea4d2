import type { Dirent, Stats } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { isErrno } from "@bridle/core";
import { parseAllowedTools } from "./allowed-tools.js";
import type { DuplicateSkill, Skill, SkillWarning } from "./skill.js";
import { normalizeSkillName } from "./validate.js";
import {
  checkSkillText,
  LOWERCASE_FILE_PROBLEM,
  LOWERCASE_SKILL_FILE,
  skillFileName,
} from "./validate-skill.js";

export interface DiscoverOptions {
  /**
   * Folders to search, in precedence order: when two skills share a name, the one found first is kept
   * (list the project's folder before the user's). Each folder may be a skill itself or hold skills;
   * a leading `~/` is the user's home folder.
   */
  readonly folders: readonly string[];
  /** Folder levels searched below each configured folder (default 3: `skills/<group>/<skill>/SKILL.md`). */
  readonly maxDepth?: number;
  /** A SKILL.md larger than this is skipped (default 1 MiB). */
  readonly maxFileBytes?: number;
  /**
   * Parsed files from an earlier discovery, reused while a file's size and mtime are unchanged (YAML
   * parsing is most of the cost); discovery updates it. SkillRegistry keeps one across reloads.
   */
  readonly cache?: DiscoveryCache;
}

/** What discovery remembers of a SKILL.md between runs. */
export type DiscoveryCache = Map<
  string,
  { readonly size: number; readonly mtimeMs: number; readonly loaded: LoadedSkill }
>;

export interface Discovery {
  readonly skills: readonly Skill[];
  readonly warnings: readonly SkillWarning[];
  readonly duplicates: readonly DuplicateSkill[];
}

// Folders that never hold skills and can be huge.
const SKIPPED = new Set(["node_modules", "__pycache__", "venv", "dist", "build", "target"]);

/**
 * Find and parse every SKILL.md (or lowercase skill.md, with a warning) under the folders. A skill the
 * Agent Skills spec calls invalid (`validateSkill`) is skipped with a warning; nothing throws for it.
 */
export async function discoverSkills(options: DiscoverOptions): Promise<Discovery> {
  const maxDepth = options.maxDepth ?? 3;
  const maxBytes = options.maxFileBytes ?? 1024 * 1024;
  const warnings: SkillWarning[] = [];
  const seen = new Set<string>();
  const perFolder = await Promise.all(
    options.folders.map(async (folder) => {
      const root = resolve(folder === "~" || folder.startsWith("~/") ? homedir() + folder.slice(1) : folder);
      const files: string[] = [];
      const missing = await collect(root, 0, maxDepth, files, seen);
      if (missing) {
        warnings.push({
          code: "missing_folder",
          file: root,
          message: `skills folder ${root} does not exist`,
        });
      }
      return files;
    }),
  );
  const files = perFolder.flat();
  const parsed = await Promise.all(files.map((file) => loadSkill(file, maxBytes, options.cache)));
  if (options.cache) {
    const current = new Set(files);
    for (const file of options.cache.keys()) if (!current.has(file)) options.cache.delete(file);
  }
  const skills: Skill[] = [];
  const duplicates: DuplicateSkill[] = [];
  const byName = new Map<string, Skill>();
  for (const result of parsed) {
    if ("warning" in result) {
      warnings.push(result.warning);
      continue;
    }
    warnings.push(...result.warnings);
    const earlier = byName.get(result.skill.name);
    if (earlier) {
      duplicates.push({ name: earlier.name, kept: earlier.file, skipped: result.skill.file });
      warnings.push({
        code: "duplicate_name",
        file: result.skill.file,
        message: `skill name "${earlier.name}" is already defined by ${earlier.file}; this one is skipped`,
      });
      continue;
    }
    byName.set(result.skill.name, result.skill);
    skills.push(result.skill);
  }
  return { skills, warnings, duplicates };
}

/** Adds the skill files under `dir` to `out` in a stable order; true when `dir` does not exist. */
async function collect(
  dir: string,
  depth: number,
  maxDepth: number,
  out: string[],
  seen: Set<string>,
): Promise<boolean> {
  let entries: Dirent[];
  try {
    // A symlinked folder is followed once: the real path guards against cycles and double counting.
    const real = await realpath(dir);
    if (seen.has(real)) return false;
    seen.add(real);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return depth === 0;
    if (isErrno(error, "EACCES")) return false;
    throw error;
  }
  const skillFile = skillFileName(entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name));
  if (skillFile) {
    out.push(join(dir, skillFile));
    // A skill's own folders (scripts/, references/) are its resources, not more skills.
    return false;
  }
  if (depth >= maxDepth) return false;
  const children: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".") || SKIPPED.has(entry.name)) continue;
    if (entry.isDirectory()) children.push(entry.name);
    else if (entry.isSymbolicLink()) {
      const target = await stat(join(dir, entry.name)).catch(() => undefined);
      if (target?.isDirectory()) children.push(entry.name);
    }
  }
  children.sort();
  const nested = await Promise.all(
    children.map(async (name) => {
      const found: string[] = [];
      await collect(join(dir, name), depth + 1, maxDepth, found, seen);
      return found;
    }),
  );
  for (const found of nested) out.push(...found);
  return false;
}

/** One skill file's outcome: the skill (and warnings it loaded with), or why it was skipped. */
export type LoadedSkill =
  | { readonly skill: Skill; readonly warnings: readonly SkillWarning[] }
  | { readonly warning: SkillWarning };

async function loadSkill(
  file: string,
  maxBytes: number,
  cache: DiscoveryCache | undefined,
): Promise<LoadedSkill> {
  let info: Stats;
  try {
    info = await stat(file);
  } catch (error) {
    return skipped(
      file,
      "unreadable",
      `cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const known = cache?.get(file);
  if (known && known.size === info.size && known.mtimeMs === info.mtimeMs) return known.loaded;
  const loaded = await parseSkillFile(file, info.size, maxBytes);
  cache?.set(file, { size: info.size, mtimeMs: info.mtimeMs, loaded });
  return loaded;
}

function skipped(file: string, code: SkillWarning["code"], message: string): LoadedSkill {
  return { warning: { code, file, message: `${file}: ${message}; skipped` } };
}

async function parseSkillFile(file: string, size: number, maxBytes: number): Promise<LoadedSkill> {
  const fail = (code: SkillWarning["code"], message: string): LoadedSkill => skipped(file, code, message);
  if (size > maxBytes) return fail("too_large", `${basename(file)} is ${size} bytes (limit ${maxBytes})`);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return fail("unreadable", `cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const dir = join(file, "..");
  const { data, problems } = checkSkillText(text, basename(dir));
  const errors = problems.filter((problem) => problem.severity === "error");
  const [first] = errors;
  if (first || !data) {
    return fail(first?.code ?? "no_front_matter", errors.map((problem) => problem.message).join("; "));
  }
  const allowed = parseAllowedTools(data["allowed-tools"]);
  const compatibility = data.compatibility as string | undefined;
  const skill: Skill = {
    name: normalizeSkillName(data.name as string),
    description: (data.description as string).trim(),
    allowedTools: "problem" in allowed ? [] : allowed,
    ...(typeof data.license === "string" ? { license: data.license } : {}),
    ...(compatibility !== undefined ? { compatibility } : {}),
    frontMatter: data,
    dir,
    file,
  };
  const warnings: SkillWarning[] =
    basename(file) === LOWERCASE_SKILL_FILE
      ? [{ code: LOWERCASE_FILE_PROBLEM.code, file, message: `${file}: ${LOWERCASE_FILE_PROBLEM.message}` }]
      : [];
  return { skill, warnings };
}
