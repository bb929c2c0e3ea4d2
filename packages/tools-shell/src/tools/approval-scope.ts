import type { ApprovalScope } from "@bridle/core";
import { neverSaveReason, type PolicyResult, scriptRunnerReason } from "@bridle/shell-policy";

// Words that mean the same thing to bash whether quoted or not: an exact argv of only these is one command.
const PLAIN_WORD = /^[A-Za-z0-9._/:=@%+,-]+$/;

// Programs whose effect is to delete or overwrite what their arguments name.
const DESTROYERS = new Set(["rm", "rmdir", "unlink", "shred", "truncate", "dd"]);

/**
 * How far "always" may reach for one shell command:
 * - the policy's `suggested_rule` (the canonical argv prefix of the one command that asked, `sed`,
 *   `git commit`), keyed by that rule, so a later command is covered only when its own suggestion is the
 *   same rule;
 * - in the sandbox, a script runner's exact command line (`npm test`, `make build`, never `npm` nor
 *   `npm run`): the script may change under the rule, but the sandbox still bounds what it can do;
 *   without a sandbox nothing stands behind such a rule, so it is not offered;
 * - nothing for an escalation (each one asks), a shell, an interpreter, a package runner, or a line the
 *   policy cannot reduce to one rule.
 */
export function commandScope(
  verdict: PolicyResult | undefined,
  options: { readonly sandboxed: boolean; readonly escalated: boolean; readonly justification?: string },
): ApprovalScope {
  if (options.escalated)
    return {
      note: "a command outside the sandbox is asked every time",
      escalation: { justification: options.justification ?? "" },
    };
  if (!verdict) return { note: "no command policy judges these commands" };
  const rule = verdict.suggested_rule;
  const [only, ...others] = verdict.subcommands;
  // A program that destroys what it names is remembered for exactly those names: "always" on
  // `rm -rf build` must not cover `rm -rf src`.
  if (rule && only && others.length === 0 && DESTROYERS.has(only.argv[0] ?? "")) {
    if (!only.argv.every((word) => PLAIN_WORD.test(word)))
      return { note: `"always" is not offered for ${only.argv[0]} with these arguments` };
    return { always: { key: `exact:${JSON.stringify(only.argv)}`, label: only.argv.join(" ") } };
  }
  if (rule && rule.decision === "allow") {
    const label = rule.argv.join(" ");
    return { always: { key: `rule:${JSON.stringify(rule.argv)}`, label } };
  }
  if (only && others.length === 0 && only.wrappers.length === 0 && only.foundIn === "command") {
    const argv = only.argv;
    const name = argv[0] ?? "";
    const first = argv.slice(1).find((word) => !word.startsWith("-"));
    const runner = name !== "git" ? scriptRunnerReason(name, first) : undefined;
    if (runner && !neverSaveReason(argv) && argv.every((word) => PLAIN_WORD.test(word))) {
      if (!options.sandboxed) return { note: `${runner}, and no sandbox bounds it: "always" is not offered` };
      return { always: { key: `exact:${JSON.stringify(argv)}`, label: argv.join(" ") } };
    }
  }
  const why = verdict.subcommands.length > 1 ? "the line runs more than one command that needs approval" : "";
  return { note: `"always" is not offered for this command${why ? `: ${why}` : ""}` };
}
