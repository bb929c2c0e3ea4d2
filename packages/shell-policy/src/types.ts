import type { PolicyIsolation } from "./isolation.js";
/** A policy verdict. Combining verdicts keeps the strictest: deny over ask over allow. */
export type Decision = "allow" | "ask" | "deny";

/**
 * A rule keyed on canonical argv. Flags (tokens starting with "-") match as a set, so `rm -rf` also
 * matches `rm -fr x` and `rm -r -f x`; the other tokens must be a prefix of the command's positional
 * words (`git push` matches `git push origin main`).
 */
export interface PolicyRule {
  readonly decision: Decision;
  readonly argv: readonly string[];
}

/** How far a command may write: "read-only" asks for every write, "workspace-write" allows writes inside the workspace. */
export type PolicyMode = "read-only" | "workspace-write";

export interface PolicyBudget {
  /** Sub-commands judged before the policy gives up and asks (default 64). */
  readonly maxSubcommands?: number;
  /** Nesting of substitutions, subshells and `bash -c` scripts (default 12). */
  readonly maxDepth?: number;
  /** Characters in the command text (default 16384). */
  readonly maxLength?: number;
}

export interface CommandPolicyOptions {
  /** Rules the user configured; allow rules for shells, interpreters, privilege wrappers and package runners are refused. */
  readonly rules?: readonly PolicyRule[];
  readonly mode?: PolicyMode;
  readonly budget?: PolicyBudget;
  /**
   * Where commands are judged. "auto" (the default): in this process when it was started with
   * `--liftoff-only` (this package's tests, `NODE_OPTIONS=--liftoff-only`), otherwise in one policy
   * process of its own that has the flag, so the bash grammar's wasm never costs this process hundreds
   * of MB. "inline" and "process" force either.
   */
  readonly isolation?: PolicyIsolation;
}

/** A path a sub-command reads or writes, and where it lands. */
export interface PathUse {
  /** As written in the command. */
  readonly path: string;
  /** Absolute, symlinks of existing ancestors resolved. */
  readonly resolved: string;
  readonly access: "read" | "write";
  readonly inside: boolean;
  readonly secret: boolean;
}

/** One simple command the policy judged, after wrappers were unwrapped. */
export interface SubcommandReport {
  /** The canonical argv: command name without its directory, wrappers removed; non-static words keep their source text. */
  readonly argv: readonly string[];
  /** Where it was found: "command", "pipeline", "command substitution", "bash -c", "find -exec", … joined by " > ". */
  readonly foundIn: string;
  /** @deprecated use `foundIn` (in Bridle "context" means only what the model sees); kept for one release. */
  readonly context: string;
  /** Wrappers removed in front of it (env, sudo, timeout, …). */
  readonly wrappers: readonly string[];
  readonly decision: Decision;
  readonly reasons: readonly string[];
  readonly paths: readonly PathUse[];
}

/** The explained verdict on a whole command line. Plain JSON: the CLI prints it as is. */
export interface PolicyResult {
  readonly command: string;
  readonly decision: Decision;
  /** Why, most severe first: each names the sub-command it comes from. */
  readonly reasons: readonly string[];
  readonly subcommands: readonly SubcommandReport[];
  /**
   * An allow rule a user could save to stop being asked, or null when none is safe to save (shells,
   * interpreters, privilege wrappers, package runners, commands that were not fully understood).
   */
  readonly suggested_rule: PolicyRule | null;
  /**
   * Present, and true, when a sub-command can print a secret from git's object store: the repository
   * tracks a secret, its history holds a secret-named path (or cannot be listed), or `git cat-file` prints
   * objects by id. The sandbox masks secret files, not git's objects, so a sandboxed run asks for these.
   */
  readonly reads_secret_objects?: boolean;
}

export function strictest(a: Decision, b: Decision): Decision {
  if (a === "deny" || b === "deny") return "deny";
  if (a === "ask" || b === "ask") return "ask";
  return "allow";
}
