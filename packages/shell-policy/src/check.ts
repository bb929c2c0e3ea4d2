import { Workspace } from "@bridle/core";
import type { Parser } from "web-tree-sitter";
import { type Decomposition, decompose, plainDecompose, type WalkBudget } from "./decompose.js";
import { loadBashParser, withTree } from "./grammar.js";
import { policyHost } from "./host-client.js";
import { judgesInPlace } from "./isolation.js";
import { type JudgeState, judgeDecomposition } from "./judge.js";
import { PathCache, realRootsOf, resolveReal } from "./paths.js";
import { ruleFor, validateRules } from "./rules.js";
import {
  type CommandPolicyOptions,
  type Decision,
  type PolicyResult,
  type PolicyRule,
  type SubcommandReport,
  strictest,
} from "./types.js";

// Characters that make a terminal show something other than what the shell runs, or that bash and the
// parser may split differently (a carriage return is a word character to bash, a space to tree-sitter).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const HIDDEN = /[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

export interface CheckOptions extends CommandPolicyOptions {
  /** The workspace the command must stay in (a Workspace, or its root folder). */
  readonly workspace: Workspace | string;
  /** Where the command starts; defaults to the workspace root. */
  readonly cwd?: string;
}

/** A reusable policy: rules validated once, checks explained. */
export class CommandPolicy {
  readonly rules: readonly PolicyRule[];
  readonly options: CommandPolicyOptions;

  constructor(options: CommandPolicyOptions = {}) {
    this.rules = validateRules(options.rules ?? []);
    this.options = options;
  }

  /**
   * Judge a command line run from `cwd` (default: the workspace root) inside `workspace`. It never
   * throws: a failure anywhere in parsing or judging is an "ask" carrying the error, since a policy
   * that crashes must not decide.
   */
  async check(command: string, workspace: Workspace | string, cwd?: string): Promise<PolicyResult> {
    try {
      // A line of plain words needs no grammar (plainDecompose): it is judged here, without a parse and
      // without a round trip to the policy process, unless the policy process was asked for.
      if (this.options.isolation !== "process") {
        const plain = this.#judge(command, workspace, cwd, undefined);
        if (plain) return plain;
      }
      if (judgesInPlace(this.options.isolation)) {
        return this.#judge(command, workspace, cwd, await loadBashParser()) as PolicyResult;
      }
      const ws = typeof workspace === "string" ? new Workspace(workspace) : workspace;
      const { isolation: _, ...options } = this.options;
      return await policyHost().check({
        command,
        roots: ws.roots,
        allowSecrets: ws.allowSecrets,
        cwd,
        options: { ...options, rules: this.rules },
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return result(
        typeof command === "string" ? command : String(command),
        "ask",
        [`the policy failed while judging this command (${message.slice(0, 200)}); it needs approval`],
        [],
      );
    }
  }

  /**
   * The verdict on `command`; without a parser, undefined when some part of it (the line, or a script
   * it runs) is not plain words.
   */
  #judge(
    command: string,
    workspace: Workspace | string,
    cwd: string | undefined,
    parser: Parser | undefined,
  ): PolicyResult | undefined {
    const ws = typeof workspace === "string" ? new Workspace(workspace) : workspace;
    const budget = this.options.budget ?? {};
    const maxLength = budget.maxLength ?? 16_384;
    if (command.trim() === "") return result(command, "ask", ["the command is empty"], []);
    if (command.length > maxLength) {
      return result(
        command,
        "ask",
        [`the command is longer than ${maxLength} characters; too long to judge`],
        [],
      );
    }
    const hidden = HIDDEN.exec(command);
    if (hidden) {
      const code = (hidden[0].codePointAt(0) ?? 0).toString(16).padStart(4, "0");
      return result(
        command,
        "ask",
        [`the command contains the control or invisible character U+${code}, which can hide what runs`],
        [],
      );
    }
    const walk: WalkBudget = {
      maxSubcommands: budget.maxSubcommands ?? 64,
      maxDepth: budget.maxDepth ?? 12,
      commands: 0,
      exhausted: undefined,
    };
    // Set when a script needed the parser this judgement does not have.
    let unparsed = false;
    const parse = (script: string, depth: number, foundIn: readonly string[]): Decomposition => {
      if (depth > walk.maxDepth) {
        walk.exhausted = `nesting deeper than ${walk.maxDepth} levels`;
        return { commands: [], issues: [] };
      }
      const plain = plainDecompose(script, walk, depth, foundIn);
      if (plain) return plain;
      if (!parser) {
        unparsed = true;
        return { commands: [], issues: ["not judged: the line needs the parser"] };
      }
      return (
        withTree(parser, script, (root) => decompose(root, walk, depth, foundIn)) ?? {
          commands: [],
          issues: ["the parser gave up"],
        }
      );
    };
    // The line itself first: one that needs the parser this judgement lacks is left before any other work.
    const top = parse(command, 0, []);
    if (unparsed) return undefined;
    const realRoots = realRootsOf(ws);
    const start = cwd ?? ws.root;
    const state: JudgeState = {
      workspace: ws,
      realRoots,
      mode: this.options.mode ?? "workspace-write",
      rules: this.rules,
      // bash's logical folder starts as $PWD when that names the folder, else as its real path: both.
      cwds: new Set([start, cwd === undefined ? (realRoots[0] ?? start) : resolveReal(start)]),
      pathChecks: { left: 512 },
      realCache: new PathCache(),
      reachBudget: { left: 20_000 },
      budget: walk,
      reports: [],
      unsaveable: [],
      firm: new Set(),
      readsSecretObjects: false,
      parseScript: parse,
    };
    const issues: string[] = [];
    judgeDecomposition(top, state, issues);
    // A nested script (bash -c) needed the parser: this verdict is thrown away.
    if (unparsed) return undefined;
    if (walk.exhausted) {
      issues.unshift(`the command is too complex to judge (${walk.exhausted}); it needs approval`);
    }
    if (state.reports.length === 0 && issues.length === 0)
      issues.push("the command runs nothing the policy can recognise");
    let decision: Decision = issues.length > 0 ? "ask" : "allow";
    for (const report of state.reports) decision = strictest(decision, report.decision);
    const reasons = [...issues];
    for (const level of ["deny", "ask"] as const) {
      for (const report of state.reports) {
        if (report.decision === level)
          for (const reason of report.reasons) reasons.push(`${label(report)}: ${reason}`);
      }
    }
    if (decision === "allow")
      for (const report of state.reports) reasons.push(`${label(report)}: ${report.reasons.join("; ")}`);
    const judged = result(
      command,
      decision,
      [...new Set(reasons)],
      state.reports,
      suggest(decision, issues, state),
    );
    // Only where it is true, so the JSON of every other verdict stays as it was.
    return state.readsSecretObjects ? { ...judged, reads_secret_objects: true } : judged;
  }
}

/**
 * Judge a command line: the sub-commands it runs (through lists, pipelines, substitutions and wrappers),
 * the paths they touch, and the rules that match. Async only because the grammar loads once.
 */
export function checkCommand(command: string, options: CheckOptions): Promise<PolicyResult> {
  return new CommandPolicy(options).check(command, options.workspace, options.cwd);
}

function label(report: SubcommandReport): string {
  const text = report.argv.join(" ");
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function suggest(decision: Decision, issues: readonly string[], state: JudgeState): PolicyRule | null {
  if (decision !== "ask" || issues.length > 0 || state.unsaveable.length > 0) return null;
  const asked = state.reports.filter((report) => report.decision === "ask");
  const rules = new Map<string, PolicyRule>();
  for (const report of asked) {
    const rule = ruleFor(report.argv);
    rules.set(rule.argv.join(" "), rule);
  }
  if (rules.size !== 1 || asked.some((report) => state.firm.has(report))) return null;
  return rules.values().next().value ?? null;
}

function result(
  command: string,
  decision: Decision,
  reasons: string[],
  subcommands: readonly SubcommandReport[],
  suggested: PolicyRule | null = null,
): PolicyResult {
  return { command, decision, reasons, subcommands, suggested_rule: suggested };
}
