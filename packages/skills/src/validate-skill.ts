import type { Stats } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { parseFrontMatter } from "./front-matter.js";
import type { SkillProblem } from "./skill.js";
import { frontMatterProblems } from "./validate.js";

export const SKILL_FILE = "SKILL.md";
/** The lowercase spelling skills-ref also accepts; loaded, with a warning to rename it. */
export const LOWERCASE_SKILL_FILE = "skill.md";

/** The skill file among a folder's entries: SKILL.md, else skill.md, else undefined. */
export function skillFileName(names: readonly string[]): string | undefined {
  if (names.includes(SKILL_FILE)) return SKILL_FILE;
  if (names.includes(LOWERCASE_SKILL_FILE)) return LOWERCASE_SKILL_FILE;
  return undefined;
}

export const LOWERCASE_FILE_PROBLEM: SkillProblem = {
  severity: "warning",
  code: "lowercase_skill_file",
  message: "skill.md should be named SKILL.md, as the spec names it (other tools may not find skill.md)",
};

/** A skill file's front matter and its problems; `data` is absent when the front matter is unreadable. */
export function checkSkillText(
  text: string,
  folderName: string,
): { readonly data?: Record<string, unknown>; readonly problems: readonly SkillProblem[] } {
  const front = parseFrontMatter(text);
  if (!front.ok) {
    const code = front.problem.startsWith("invalid YAML") ? "invalid_yaml" : "no_front_matter";
    return { problems: [{ severity: "error", code, message: front.problem }] };
  }
  return { data: front.data, problems: frontMatterProblems(front.data, folderName) };
}

/**
 * Checks one skill folder (or its SKILL.md) against the Agent Skills specification, rule for rule as
 * the reference validator skills-ref does, and returns every problem found: none means valid. Errors
 * make a skill invalid (discovery skips it); a warning (a lowercase skill.md) does not.
 */
export async function validateSkill(path: string): Promise<SkillProblem[]> {
  let dir = resolve(path);
  let info: Stats;
  try {
    info = await stat(dir);
  } catch {
    return [{ severity: "error", code: "missing_folder", message: `${dir} does not exist` }];
  }
  if (info.isFile() && basename(dir).toLowerCase() === SKILL_FILE.toLowerCase()) dir = dirname(dir);
  else if (!info.isDirectory()) {
    return [{ severity: "error", code: "not_a_folder", message: `${dir} is not a folder` }];
  }
  const name = skillFileName(await readdir(dir));
  if (!name) {
    return [{ severity: "error", code: "missing_skill_file", message: `${dir} has no ${SKILL_FILE}` }];
  }
  const file = join(dir, name);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    return [{ severity: "error", code: "unreadable", message: `${file}: cannot read it (${reason})` }];
  }
  const { problems } = checkSkillText(text, basename(dir));
  return [...(name === LOWERCASE_SKILL_FILE ? [LOWERCASE_FILE_PROBLEM] : []), ...problems];
}
