import { BridleError } from "@bridle/core";
import { parseArgs } from "./argv.js";
import { DESTRUCTIVE, FLAG_ALIASES, READ_ONLY, specArgs, WORKSPACE_WRITERS } from "./specs.js";
import { type Decision, type PolicyRule, strictest } from "./types.js";
import { staticWord } from "./words.js";
import { neverSaveReason } from "./wrappers.js";

/** An argv reduced to what rules compare: the name, the set of flags, the operands in order. */
export interface CanonicalArgs {
  readonly name: string;
  readonly flags: ReadonlySet<string>;
  readonly operands: readonly string[];
}

export function canonicalArgs(argv: readonly string[]): CanonicalArgs {
  const [name = "", ...rest] = argv;
  const spec = READ_ONLY[name] ?? WORKSPACE_WRITERS[name] ?? DESTRUCTIVE[name];
  const words = rest.map(staticWord);
  const parsed = spec ? specArgs(spec, words) : parseArgs(words);
  const aliases = FLAG_ALIASES[name] ?? {};
  const flags = new Set<string>();
  const operands: string[] = [];
  for (const { flag, value } of parsed.flags) {
    flags.add(aliases[flag] ?? flag);
    if (value) operands.push(value.value);
  }
  for (const word of parsed.positionals) operands.push(word.value);
  return { name, flags, operands };
}

function matches(rule: PolicyRule, command: CanonicalArgs): boolean {
  const wanted = canonicalArgs(rule.argv);
  if (wanted.name !== command.name) return false;
  for (const flag of wanted.flags) if (!command.flags.has(flag)) return false;
  return wanted.operands.every((operand, i) => command.operands[i] === operand);
}

/** The strictest rule matching a command, if any. */
export function matchingRule(rules: readonly PolicyRule[], command: CanonicalArgs): PolicyRule | undefined {
  let found: PolicyRule | undefined;
  for (const rule of rules) {
    if (!matches(rule, command)) continue;
    if (!found || strictest(found.decision, rule.decision) !== found.decision) found = rule;
  }
  return found;
}

const DECISIONS: readonly Decision[] = ["allow", "ask", "deny"];

/**
 * Validate configured rules. Allow rules for shells, interpreters, privilege and other wrappers, and
 * package runners are refused: each would allow any command at all.
 */
export function validateRules(rules: readonly PolicyRule[]): PolicyRule[] {
  return rules.map((rule, i) => {
    if (!DECISIONS.includes(rule.decision))
      throw new BridleError("invalid_config", `rule ${i + 1}: decision must be allow, ask or deny`);
    if (
      !Array.isArray(rule.argv) ||
      rule.argv.length === 0 ||
      rule.argv.some((word) => typeof word !== "string" || word === "")
    ) {
      throw new BridleError("invalid_config", `rule ${i + 1}: argv must be a non-empty list of words`);
    }
    const never = rule.decision === "allow" ? neverSaveReason(rule.argv) : undefined;
    if (never)
      throw new BridleError(
        "invalid_config",
        `rule ${i + 1} (allow ${rule.argv.join(" ")}): refused, ${never}`,
      );
    return { decision: rule.decision, argv: [...rule.argv] };
  });
}

// Tools whose first operand picks what they do: a saved rule keeps it (`git commit`, not all of git).
const MULTI_COMMAND = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "cargo",
  "go",
  "docker",
  "podman",
  "kubectl",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "gradle",
  "mvn",
  "dotnet",
  "rustup",
  "brew",
  "apt",
  "apt-get",
  "make",
  "just",
  "gh",
  "terraform",
  "helm",
]);

/** The narrowest allow rule that would cover a canonical argv. */
export function ruleFor(argv: readonly string[]): PolicyRule {
  const [name = "", ...rest] = argv;
  const first = rest.find((word) => !word.startsWith("-"));
  return { decision: "allow", argv: MULTI_COMMAND.has(name) && first !== undefined ? [name, first] : [name] };
}
