/** One discovered skill: its front matter and where it lives. The body is read again when it is used. */
export interface Skill {
  /** As written, trimmed and NFKC-normalised (how the spec compares names). */
  readonly name: string;
  readonly description: string;
  /**
   * Entries of `allowed-tools` as written (`Read`, `Bash(git:*)`, `read_file`). Empty when absent or
   * empty: such a skill restricts nothing.
   */
  readonly allowedTools: readonly string[];
  readonly license?: string;
  readonly compatibility?: string;
  /** The whole front matter as read: every scalar a string, as the reference validator reads it. */
  readonly frontMatter: Readonly<Record<string, unknown>>;
  /** The skill's folder (absolute, as configured: not resolved through symlinks). */
  readonly dir: string;
  /** The skill file: SKILL.md, or a lowercase skill.md (loaded with a warning). */
  readonly file: string;
}

export type SkillWarningCode =
  | "unreadable"
  | "no_front_matter"
  | "invalid_yaml"
  | "invalid_name"
  | "invalid_description"
  | "invalid_field"
  | "unknown_field"
  | "lowercase_skill_file"
  | "missing_skill_file"
  | "not_a_folder"
  | "duplicate_name"
  | "too_large"
  | "missing_folder";

/** One way a skill breaks the Agent Skills spec: an error makes it invalid, a warning does not. */
export interface SkillProblem {
  readonly severity: "error" | "warning";
  readonly code: SkillWarningCode;
  readonly message: string;
}

/**
 * A skill that was skipped (its problems, joined), a skill loaded despite a warning (a lowercase
 * `skill.md`), or a name defined twice. `file` names the skill file concerned.
 */
export interface SkillWarning {
  readonly code: SkillWarningCode;
  readonly file: string;
  readonly message: string;
}

/** A name two SKILL.md files both claim: the first (by folder order) is kept, the other is reported. */
export interface DuplicateSkill {
  readonly name: string;
  readonly kept: string;
  readonly skipped: string;
}
