import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { validateSkill } from "@bridle/skills";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";

export const SKILLS_USAGE = "usage: bridle skills validate DIR...";

const SKILL_FILES = ["SKILL.md", "skill.md"];

/**
 * The skill folders DIR names: DIR itself when it holds a skill file or is not a folder of skills (the
 * validator then says what is wrong with it), else each sub-folder that holds one, in name order.
 */
function skillFolders(dir: string, base: string): string[] {
  const path = resolve(base, dir);
  if (SKILL_FILES.some((name) => existsSync(join(path, name)))) return [dir];
  let entries: string[];
  try {
    entries = readdirSync(path, { withFileTypes: true })
      .filter(
        (entry) =>
          entry.isDirectory() && SKILL_FILES.some((name) => existsSync(join(path, entry.name, name))),
      )
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [dir];
  }
  return entries.length === 0 ? [dir] : entries.map((name) => join(dir, name));
}

/**
 * `bridle skills validate DIR...`: each skill folder (or each skill in a folder of skills) checked against
 * the Agent Skills spec as its reference validator reads it. One line per problem (`DIR: error: …`), then
 * one line per valid skill; exit 0 when every skill is valid (warnings allowed), 1 when one is not.
 */
export async function skillsCommand(positionals: readonly string[], flags: CliFlags): Promise<number> {
  const [action, ...named] = positionals;
  if (action !== "validate" || named.length === 0) throw new CliError(SKILLS_USAGE, 2);
  const base = flags.cwd ?? process.cwd();
  const dirs = named.flatMap((dir) => skillFolders(dir, base));
  let invalid = 0;
  for (const dir of dirs) {
    const problems = await validateSkill(resolve(base, dir));
    for (const problem of problems) process.stdout.write(`${dir}: ${problem.severity}: ${problem.message}\n`);
    if (problems.some((problem) => problem.severity === "error")) invalid++;
    else process.stdout.write(`${dir}: valid skill\n`);
  }
  return invalid > 0 ? 1 : 0;
}
