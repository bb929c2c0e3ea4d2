/** One discovered skill: its front matter and where it lives. The body is read again when it is used. */
export interface Skill {
  readonly name: string;
  readonly description: string;
  /**
   * Entries of `allowed-tools` as written (`Read`, `Bash(git:*)`, `read_file`). Empty when absent or
   * empty: such a skill restricts nothing.
   */
  readonly allowedTools: readonly string[];
  readonly license?: string;
  readonly compatibility?: string;
  /** The whole front matter, including keys this package does not interpret (`metadata`, `tags`…). */
  readonly frontMatter: Readonly<Record<string, unknown>>;
  /** The skill's folder (absolute, as configured: not resolved through symlinks). */
  readonly dir: string;
  /** The SKILL.md file. */
  readonly file: string;
}

export type SkillWarningCode =
  | "unreadable"
  | "no_front_matter"
  | "invalid_yaml"
  | "invalid_name"
  | "invalid_description"
  | "invalid_field"
  | "duplicate_name"
  | "too_large"
  | "missing_folder";

/** A skill that was skipped, or a name defined twice. `file` names the SKILL.md concerned. */
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
