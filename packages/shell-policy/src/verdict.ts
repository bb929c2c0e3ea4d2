import type { ShellWord } from "./words.js";

/** A word a command uses as a path, and how. */
export interface PathClaim {
  readonly word: ShellWord;
  readonly access: "read" | "write";
  /** Only its name and metadata are shown (ls, stat): the secret rule does not apply to it. */
  readonly names?: boolean;
  /** A folder read recursively: every file below it is read (grep -r, rg, diff -r, cp -r, find -exec). */
  readonly recursive?: boolean;
  /** With `recursive`: only files whose name matches all of these are read (find -name). */
  readonly only?: readonly RegExp[];
}

/** What judging one argv found. The check turns it into a SubcommandReport. */
export interface Verdict {
  /** Reasons to ask that a saved allow rule may override (not in the allowlist, writes in the workspace). */
  readonly soft: string[];
  /** Reasons to ask that no rule overrides: structure not understood, privileges, inline code. */
  readonly hard: string[];
  readonly deny: string[];
  readonly paths: PathClaim[];
  /** Commands it runs in turn (find -exec, xargs), judged as sub-commands of their own. */
  readonly nested: { words: readonly ShellWord[]; label: string; extraArgs: boolean }[];
  /** Scripts it runs (bash -c), parsed and judged like a command line. */
  readonly scripts: { script: ShellWord; label: string }[];
  /** Why an allowed command is fine, when it is not plain "read-only" (a shell whose script is judged). */
  readonly notes: string[];
  /**
   * It can print a secret from git's object store (a tracked secret, a history holding one, an object by
   * id): the sandbox masks files, not objects, so inside it this still asks.
   */
  readsSecretObjects?: boolean;
  /** For `cd`: where it goes (null when unknown). */
  cd: ShellWord | null | undefined;
  /** For `cd -P`: the kernel's walk, not bash's logical one. */
  cdPhysical?: boolean;
}

export function emptyVerdict(): Verdict {
  return { soft: [], hard: [], deny: [], paths: [], nested: [], scripts: [], notes: [], cd: undefined };
}
