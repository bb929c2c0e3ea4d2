import type { ShellWord } from "./words.js";

/** What judging one argv found. The check turns it into a SubcommandReport. */
export interface Verdict {
  /** Reasons to ask that a saved allow rule may override (not in the allowlist, writes in the workspace). */
  readonly soft: string[];
  /** Reasons to ask that no rule overrides: structure not understood, privileges, inline code. */
  readonly hard: string[];
  readonly deny: string[];
  readonly paths: { word: ShellWord; access: "read" | "write" }[];
  /** Commands it runs in turn (find -exec, xargs), judged as sub-commands of their own. */
  readonly nested: { words: readonly ShellWord[]; label: string; extraArgs: boolean }[];
  /** Scripts it runs (bash -c), parsed and judged like a command line. */
  readonly scripts: { script: ShellWord; label: string }[];
  /** Why an allowed command is fine, when it is not plain "read-only" (a shell whose script is judged). */
  readonly notes: string[];
  /** For `cd`: where it goes (null when unknown). */
  cd: ShellWord | null | undefined;
}

export function emptyVerdict(): Verdict {
  return { soft: [], hard: [], deny: [], paths: [], nested: [], scripts: [], notes: [], cd: undefined };
}
