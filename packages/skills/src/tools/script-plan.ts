import { realpath, stat } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { isWithin, ToolFailure, type Workspace } from "@bridle/core";
import { realPathOf, shellCommand } from "@bridle/core/node";
import { resolveInSkill } from "../files.js";
import type { Skill } from "../skill.js";

/** Interpreters by script extension. A script is never run through its shebang or execute bit. */
export const DEFAULT_INTERPRETERS: Readonly<Record<string, readonly string[]>> = {
  ".py": ["python3"],
  ".sh": ["bash"],
  ".bash": ["bash"],
  ".js": ["node"],
  ".mjs": ["node"],
  ".cjs": ["node"],
};

export interface ScriptPlan {
  readonly script: string;
  /** The script's real path. */
  readonly scriptPath: string;
  /** The words run, in order: interpreter, the script's real path, the arguments. */
  readonly argv: readonly string[];
  /** The same words, each single-quoted, as the one line the runner's shell reads. */
  readonly command: string;
}

/**
 * Decide what a skill_run call runs. The script must be a file inside the skill's folder (symlinks
 * included); every argument that names a path must stay inside the workspace or the skill's folder.
 */
export async function planScript(
  skill: Skill,
  script: string,
  args: readonly string[],
  workspace: Workspace,
  interpreters: Readonly<Record<string, readonly string[]>>,
): Promise<ScriptPlan> {
  const real = await resolveInSkill(skill, script);
  if (!(await stat(real)).isFile()) throw new ToolFailure("InvalidInput", `${script} is not a file`);
  const interpreter = interpreters[extname(real).toLowerCase()];
  if (!interpreter) {
    throw new ToolFailure(
      "InvalidInput",
      `cannot run ${script}: skill_run runs ${Object.keys(interpreters).join(", ")} scripts`,
    );
  }
  const skillRoot = await realpath(skill.dir);
  for (const arg of args) {
    if (arg.includes("\0")) throw new ToolFailure("InvalidInput", "an argument contains a NUL byte");
    for (const candidate of pathCandidates(arg)) {
      // A dangling link has no real path yet: the script would write through it to anywhere.
      const target = await realPathOf(resolve(workspace.root, candidate));
      if (target === undefined || (!(await workspace.contains(target)) && !isWithin(skillRoot, target))) {
        throw new ToolFailure(
          "Denied",
          `argument "${clip(arg)}" names a path outside the workspace and the skill's folder; scripts may only be given paths inside them`,
        );
      }
    }
  }
  const argv = [...interpreter, real, ...args];
  return { script, scriptPath: real, argv, command: shellCommand(argv) };
}

/** The argument itself, and the value of an `--option=value` form. */
function pathCandidates(arg: string): string[] {
  const candidates = [arg];
  const eq = /^-{1,2}[A-Za-z0-9][\w-]*=(.*)$/s.exec(arg);
  if (eq?.[1]) candidates.push(eq[1]);
  return candidates
    .map((value) => (value.startsWith("~") ? `/${value}` : value))
    .filter((value) => value !== "");
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
