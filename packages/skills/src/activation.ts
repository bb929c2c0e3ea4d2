import type { AnyHook, BeforeToolCallInput } from "@bridle/core";
import type { Skill } from "./skill.js";
import { CLAUDE_TOOL_NAMES, commandMatches, grantsOf, type SkillGrants } from "./tool-names.js";

/** The skill tools: always callable, so a restricted run can still read its skill's files. */
export const SKILL_TOOL_NAMES: readonly string[] = ["skill_read", "skill_run"];

export interface ActivationOptions {
  /** Claude-style names → Bridle tool names (default CLAUDE_TOOL_NAMES; merge yours into it). */
  readonly aliases?: Readonly<Record<string, readonly string[]>>;
}

interface Active {
  readonly skill: Skill;
  readonly grants: SkillGrants;
}

/**
 * Which skills each run has used. A skill becomes active when skill_read or skill_run touches it; from
 * then on, in that run, a tool call must be allowed by the allowed-tools of every active skill that has
 * them. Restrictions only accumulate: reading a second skill never widens what the first one allows.
 */
export class SkillActivations {
  readonly #runs = new Map<string, Map<string, Active>>();
  readonly #aliases: Readonly<Record<string, readonly string[]>>;

  constructor(options: ActivationOptions = {}) {
    this.#aliases = options.aliases ?? CLAUDE_TOOL_NAMES;
  }

  activate(runId: string, skill: Skill): void {
    let run = this.#runs.get(runId);
    if (!run) {
      run = new Map();
      this.#runs.set(runId, run);
    }
    if (!run.has(skill.name))
      run.set(skill.name, { skill, grants: grantsOf(skill.allowedTools, this.#aliases) });
  }

  /** The skills active in a run, in activation order. */
  active(runId: string): readonly Skill[] {
    return [...(this.#runs.get(runId)?.values() ?? [])].map((entry) => entry.skill);
  }

  /** Forget a run (its end), or one skill of it (the application ends the skill's use). */
  release(runId: string, skillName?: string): void {
    if (skillName === undefined) this.#runs.delete(runId);
    else this.#runs.get(runId)?.delete(skillName);
  }

  /** Why a call is refused in this run, or undefined when it may go ahead. */
  refusal(runId: string, toolName: string, args: unknown): string | undefined {
    if (SKILL_TOOL_NAMES.includes(toolName)) return undefined;
    for (const { skill, grants } of this.#runs.get(runId)?.values() ?? []) {
      if (skill.allowedTools.length === 0) continue;
      const grant = grants.tools.get(toolName);
      const allowed =
        grant?.kind === "any" ||
        (grant?.kind === "commands" &&
          grant.patterns.some((pattern) => commandMatches(commandOf(args), pattern)));
      if (!allowed) {
        const list = skill.allowedTools.join(" ");
        return grant?.kind === "commands"
          ? `the skill ${skill.name} in use allows bash only for: ${grant.patterns.join(", ")} (one plain command, no ;, &&, |, $(), redirections or globs)`
          : `the skill ${skill.name} in use allows only these tools: ${list}`;
      }
    }
    return undefined;
  }

  /**
   * Hooks for the Harness: `before_tool_call` denies calls the active skills do not allow (the model
   * sees Denied with the reason), `run_end` forgets the run (unless it paused for approval).
   */
  hooks(): AnyHook[] {
    return [
      {
        event: "before_tool_call",
        name: "skills:allowed-tools",
        handler: (input: BeforeToolCallInput) => {
          const reason = this.refusal(input.runId, input.toolCall.name, input.args);
          if (reason !== undefined) input.cancel(reason);
        },
      },
      {
        event: "run_end",
        name: "skills:release",
        handler: (input) => {
          // A run paused for approval resumes under the same id: its skills stay in use.
          if (input.stopReason !== "approval_required") this.release(input.runId);
        },
      },
    ];
  }
}

function commandOf(args: unknown): string {
  if (typeof args === "object" && args !== null && "command" in args) {
    const command = (args as { command: unknown }).command;
    if (typeof command === "string") return command;
  }
  return "";
}
