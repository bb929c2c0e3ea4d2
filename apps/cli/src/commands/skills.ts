import { resolve } from "node:path";
import { validateSkill } from "@bridle/skills";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";

export const SKILLS_USAGE = "usage: bridle skills validate DIR...";

/**
 * `bridle skills validate DIR...`: each skill folder checked against the Agent Skills spec as its
 * reference validator reads it. One line per problem (`DIR: error: …`), then one line per valid skill;
 * exit 0 when every skill is valid (warnings allowed), 1 when one is not.
 */
export async function skillsCommand(positionals: readonly string[], flags: CliFlags): Promise<number> {
  const [action, ...dirs] = positionals;
  if (action !== "validate" || dirs.length === 0) throw new CliError(SKILLS_USAGE, 2);
  let invalid = 0;
  for (const dir of dirs) {
    const problems = await validateSkill(resolve(flags.cwd ?? process.cwd(), dir));
    for (const problem of problems) process.stdout.write(`${dir}: ${problem.severity}: ${problem.message}\n`);
    if (problems.some((problem) => problem.severity === "error")) invalid++;
    else process.stdout.write(`${dir}: valid skill\n`);
  }
  return invalid > 0 ? 1 : 0;
}
