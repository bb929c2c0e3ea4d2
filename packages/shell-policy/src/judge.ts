import { basename } from "node:path";
import { type ParsedArgs, parseArgs } from "./argv.js";
import { cdLandings } from "./cd.js";
import { judgeCreated, judgeRsync } from "./created.js";
import type { Decomposition, RawCommand, WalkBudget } from "./decompose.js";
import { judgeFind } from "./find.js";
import { judgeGit } from "./git.js";
import { recordLinks } from "./links.js";
import { checkPath, type PathContext } from "./paths.js";
import { canonicalArgs, matchingRule } from "./rules.js";
import {
  type CommandSpec,
  DENIED,
  DESTRUCTIVE,
  READ_ONLY,
  specArgs,
  unknownOptions,
  WORKSPACE_WRITERS,
} from "./specs.js";
import type { Decision, PathUse, PolicyMode, PolicyRule, SubcommandReport } from "./types.js";
import { judgeVariableBuiltin } from "./variable-builtins.js";
import { variableRisk } from "./variables.js";
import { emptyVerdict, type Verdict } from "./verdict.js";
import { type ShellWord, staticWord } from "./words.js";
import {
  CODE_BUILTINS,
  isInterpreter,
  isPackageRunner,
  JUDGED_SHELLS,
  neverSaveReason,
  SHELL_SAFE_FLAGS,
  SHELL_SAFE_SETS,
  SHELLS,
  scriptRunnerReason,
  WRAPPERS,
} from "./wrappers.js";

/** Everything one check shares while it judges the sub-commands of a command line. */
export interface JudgeState extends PathContext {
  readonly mode: PolicyMode;
  readonly rules: readonly PolicyRule[];
  readonly cwds: Set<string | null>;
  readonly budget: WalkBudget;
  readonly reports: SubcommandReport[];
  /** Sub-commands for which no allow rule may be saved, and why. */
  readonly unsaveable: string[];
  /** Reports asked for reasons no allow rule overrides (paths outside, words not static, structure). */
  readonly firm: Set<SubcommandReport>;
  /** Set when a sub-command can print a secret from git's object store (Verdict.readsSecretObjects). */
  readsSecretObjects: boolean;
  /** Parse and decompose a nested script (bash -c). */
  readonly parseScript: (script: string, depth: number, foundIn: readonly string[]) => Decomposition;
}

/** The reason of a sub-command judged fully as reading only (writes.ts builds its proof on it). */
export const READ_ONLY_REASON = "read-only inside the workspace";

const SYSTEM_BIN = /^\/(?:usr\/)?(?:local\/)?s?bin\/[^/]+$/;

export function judgeDecomposition(decomposition: Decomposition, state: JudgeState, issues: string[]): void {
  issues.push(...decomposition.issues);
  for (const raw of decomposition.commands) {
    if (state.budget.exhausted) return;
    judgeRaw(raw, state, issues);
  }
}

function judgeRaw(raw: RawCommand, state: JudgeState, issues: string[]): void {
  const chain = raw.cdChain;
  if (!chain || chain.length === 0) {
    judgeRawIn(raw, state, issues);
    return;
  }
  // Judged only from where the chain's cds lead (a superset: each is applied to every folder the
  // shell may be in); folders it cds to itself still join the set the rest of the line is judged from.
  const before = [...state.cwds];
  const effective = new Set<string | null>();
  for (const start of before) {
    let cwds: (string | null)[] = [start];
    for (const target of chain)
      cwds = cwds.flatMap((cwd) =>
        cwd === null && !target.value.startsWith("/")
          ? [null]
          : cdLandings(cwd ?? "/", target.value, false, state.realCache),
      );
    for (const cwd of cwds) effective.add(cwd);
  }
  state.cwds.clear();
  for (const cwd of effective) state.cwds.add(cwd);
  try {
    judgeRawIn(raw, state, issues);
  } finally {
    const added = [...state.cwds].filter((cwd) => !effective.has(cwd));
    state.cwds.clear();
    for (const cwd of [...before, ...added]) state.cwds.add(cwd);
  }
}

function judgeRawIn(raw: RawCommand, state: JudgeState, issues: string[]): void {
  const verdict = emptyVerdict();
  for (const { name, value } of raw.assignments) {
    const risk = variableRisk(name, value);
    if (risk) verdict.hard.push(risk);
  }
  // What the command reads as its standard input, when that is a here-document or here-string.
  let stdin: ShellWord | undefined;
  for (const redirect of raw.redirects) {
    if (redirect.op === "<<" || redirect.op === "<<<") stdin = redirect.target;
    else if (redirect.op.startsWith("<")) stdin = undefined;
    if (redirect.op.includes("<<")) continue;
    if (redirect.target.kind === "fd") continue;
    const access = redirect.op.includes(">") ? "write" : "read";
    if (redirect.target.kind === "glob")
      verdict.hard.push(`the redirection target "${redirect.target.text}" is a pattern`);
    else verdict.paths.push({ word: redirect.target, access });
  }
  if (raw.words.length === 0) {
    const argv = raw.assignments.map((a) => `${a.name}=${a.value?.text ?? ""}`);
    finish(argv.length > 0 ? argv : ["(redirection)"], [], raw.foundIn, verdict, state);
    return;
  }
  judgeArgv(raw.words, raw.foundIn, raw.depth, [], false, verdict, state, issues, stdin);
}

function judgeArgv(
  words: readonly ShellWord[],
  foundIn: readonly string[],
  depth: number,
  wrappers: string[],
  extraArgs: boolean,
  verdict: Verdict,
  state: JudgeState,
  issues: string[],
  stdin?: ShellWord,
): void {
  let current = words;
  let name = "";
  for (;;) {
    const head = current[0];
    if (!head) {
      finish([wrappers.at(-1) ?? ""], wrappers.slice(0, -1), foundIn, verdict, state);
      return;
    }
    if (head.kind === "dynamic" || head.kind === "glob") {
      verdict.hard.push(`the command name "${head.text}" is not static: what runs cannot be known`);
      finish(current.map(shown), wrappers, foundIn, verdict, state);
      return;
    }
    if (head.kind === "obfuscated")
      verdict.hard.push(`the command name is written as ${head.text}, which hides what runs`);
    name = head.value;
    if (name.includes("/")) {
      if (SYSTEM_BIN.test(name)) name = basename(name);
      else verdict.hard.push(`runs the program file ${head.text}`);
    }
    const wrapper = WRAPPERS[name];
    if (!wrapper) break;
    const args = parseArgs(current.slice(1), {
      values: new Set(wrapper.options.values),
      optional: new Set(wrapper.options.optional),
      stopAtPositional: true,
    });
    const flags = args.flags.map((f) => f.flag);
    for (const flag of flags)
      if (!wrapper.options.known.has(flag) && !(name === "nice" && /^-[0-9]$/.test(flag)))
        verdict.hard.push(`${name} ${flag} is not an option the policy knows (it may abbreviate another)`);
    if (wrapper.inspectFlags && flags.some((f) => wrapper.inspectFlags?.includes(f))) {
      finish([name, ...current.slice(1).map(shown)], wrappers, foundIn, verdict, state);
      return;
    }
    for (const flag of flags) {
      if (wrapper.opaqueFlags?.includes(flag))
        verdict.hard.push(`${name} ${flag} runs something the policy cannot follow`);
      if (wrapper.shellFlags?.includes(flag)) verdict.hard.push(`${name} ${flag} starts a shell`);
    }
    for (const { flag, value } of args.flags) {
      if (wrapper.envFlags?.includes(flag)) {
        const risk = value && value.kind !== "dynamic" ? variableRisk(value.value) : undefined;
        if (risk || !value || value.kind === "dynamic")
          verdict.hard.push(risk ?? `${name} ${flag} sets a variable the policy cannot see`);
      }
      if (value && wrapper.writePathFlags?.includes(flag))
        verdict.paths.push({ word: value, access: "write" });
      if (value && name === "xargs" && (flag === "-a" || flag === "--arg-file"))
        verdict.paths.push({ word: value, access: "read" });
    }
    if (wrapper.privilege) {
      verdict.hard.push(`${name} runs the command with other privileges`);
      state.unsaveable.push(`${name} runs commands with other privileges`);
    }
    let rest = args.rest;
    if (wrapper.assignments) {
      // env takes every leading word holding "=" as an assignment, names bash could not write included.
      while (rest[0] && rest[0].kind !== "dynamic" && /^[^=]+=/.test(rest[0].value)) {
        const word = rest[0];
        const eq = word.value.indexOf("=");
        const risk = variableRisk(word.value.slice(0, eq), { ...word, value: word.value.slice(eq + 1) });
        if (risk) verdict.hard.push(risk);
        rest = rest.slice(1);
      }
    }
    rest = rest.slice(wrapper.skip ?? 0);
    wrappers.push(name);
    if (name === "xargs") {
      // xargs reads the here-document as arguments; what it runs does not get it as a script.
      stdin = undefined;
      extraArgs = true;
      if (rest.length === 0) rest = [staticWord("echo")];
      // With -I R (or -i), xargs writes each input line into every word holding R: those words are unknown.
      const replace = args.flags
        .filter((f) => ["-I", "-i", "--replace"].includes(f.flag))
        .map((f) => f.value?.value ?? "{}");
      if (replace.length > 0)
        rest = rest.map((word) =>
          replace.some((r) => r !== "" && word.value.includes(r))
            ? { ...word, kind: "dynamic" as const }
            : word,
        );
    }
    if (rest.length === 0) {
      if (wrapper.privilege || name === "exec") verdict.hard.push(`${name} without a command`);
      finish([name, ...current.slice(1).map(shown)], wrappers.slice(0, -1), foundIn, verdict, state);
      return;
    }
    current = rest;
  }
  const args = current.slice(1);
  const argv = [name, ...args.map(shown)];
  judgeCommand(name, args, extraArgs, verdict, state, stdin);
  finish(argv, wrappers, foundIn, verdict, state);
  recordLinks(name, args, state.cwds, state.realCache);
  judgeInner(verdict, foundIn, depth, state, issues);
}

function judgeCommand(
  name: string,
  args: readonly ShellWord[],
  extraArgs: boolean,
  verdict: Verdict,
  state: JudgeState,
  stdin: ShellWord | undefined,
): void {
  const denied = DENIED[name] ?? (name.startsWith("mkfs.") ? "formats a file system" : undefined);
  if (denied) {
    verdict.deny.push(`${name} ${denied}`);
    return;
  }
  const never = neverSaveReason([name, ...args.map((w) => w.value)]);
  if (SHELLS.has(name)) {
    state.unsaveable.push(never ?? `${name} is a shell`);
    judgeShell(name, args, verdict, stdin);
    return;
  }
  if (CODE_BUILTINS.has(name)) {
    state.unsaveable.push(never ?? `${name} can run arbitrary code`);
    verdict.hard.push(`${name} can run code or change what later commands run`);
    return;
  }
  if (isInterpreter(name)) {
    state.unsaveable.push(never ?? `${name} is an interpreter`);
    verdict.hard.push(`${name} runs code the policy cannot judge`);
    return;
  }
  if (isPackageRunner(name, args[0]?.value)) {
    state.unsaveable.push(never ?? `${name} runs packages`);
    verdict.hard.push(`${name} downloads and runs packages`);
    return;
  }
  if (judgeVariableBuiltin(name, args, verdict)) return;
  const runner = scriptRunnerReason(name, args.find((word) => !word.value.startsWith("-"))?.value);
  if (name === "git") {
    judgeGit(args, verdict, state, () => {
      if (runner) state.unsaveable.push(runner);
    });
  } else if (name === "popd") {
    verdict.cd = null;
  } else if (name === "cd" || name === "pushd") {
    judgeCd(args, verdict);
  } else if (name === "find") {
    judgeFind(args, verdict);
  } else {
    if (runner) state.unsaveable.push(runner);
    const spec = READ_ONLY[name] ?? WORKSPACE_WRITERS[name] ?? DESTRUCTIVE[name];
    if (spec) judgeCreated(name, applySpec(name, spec, args, verdict, state.mode), verdict, state);
    else {
      judgeUnknown(name, args, verdict);
      if (name === "rsync") judgeRsync(args, verdict, state);
    }
  }
  const spec = READ_ONLY[name];
  if (extraArgs && spec?.kind !== "none")
    verdict.hard.push(`xargs adds arguments read from its input to ${name}; they cannot be checked`);
}

/**
 * cd and pushd: `-L` (the default) and `-P` choose bash's logical or the kernel's walk (cd.ts); any other
 * option (`-e`, `-@`), pushd's stack rotations (`+N`), `-` and words not static leave the folder unknown.
 */
function judgeCd(args: readonly ShellWord[], verdict: Verdict): void {
  let physical = false;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i] as ShellWord;
    if (word.kind !== "static" || !/^-[LP]+$/.test(word.value)) break;
    physical = word.value.at(-1) === "P";
  }
  if (args[i]?.value === "--") i++;
  const target = args[i];
  if (!target || args.length > i + 1 || target.kind !== "static" || /^[-+]/.test(target.value)) {
    verdict.cd = null;
    return;
  }
  verdict.cd = target;
  verdict.cdPhysical = physical;
  verdict.paths.push({ word: target, access: "read", names: true });
}

/** Commands and scripts a judged command runs in turn: judged after it, each where it was found. */
function judgeInner(
  verdict: Verdict,
  foundIn: readonly string[],
  depth: number,
  state: JudgeState,
  issues: string[],
): void {
  if ((verdict.nested.length > 0 || verdict.scripts.length > 0) && depth + 1 > state.budget.maxDepth) {
    state.budget.exhausted = `nesting deeper than ${state.budget.maxDepth} levels`;
    return;
  }
  for (const nested of verdict.nested) {
    judgeArgv(
      nested.words,
      [...foundIn, nested.label],
      depth + 1,
      [],
      nested.extraArgs,
      emptyVerdict(),
      state,
      issues,
    );
  }
  for (const { script, label } of verdict.scripts) {
    judgeDecomposition(state.parseScript(script.value, depth + 1, [...foundIn, label]), state, issues);
  }
}

function judgeShell(
  name: string,
  args: readonly ShellWord[],
  verdict: Verdict,
  stdin: ShellWord | undefined,
): void {
  if (name === "eval" || name === "source" || name === ".") {
    verdict.hard.push(`${name} runs code the policy cannot see`);
    return;
  }
  if (!JUDGED_SHELLS.has(name)) {
    verdict.hard.push(`${name} is a shell whose language or startup files the policy does not model`);
    return;
  }
  let command = false;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i] as ShellWord;
    if (word.kind === "dynamic") break;
    const value = word.value;
    if (value === "--" || value === "-") {
      i++;
      break;
    }
    if (!(value.startsWith("-") || value.startsWith("+")) || value.length < 2) break;
    const cluster = value.startsWith("--") ? [value] : [...value.slice(1)].map((letter) => `-${letter}`);
    for (const flag of cluster) {
      if (flag === "-o" && !value.startsWith("+")) {
        // `-euo pipefail`: the option name is the next word.
        const option = args[++i]?.value ?? "";
        if (!SHELL_SAFE_SETS.has(option))
          verdict.hard.push(`${name} -o ${option} is not an option the policy knows`);
      } else if (flag === "-c") command = true;
      else if (!SHELL_SAFE_FLAGS.has(flag) || value.startsWith("+"))
        verdict.hard.push(
          `${name} ${value} may read a startup file, read commands from input or change how words expand`,
        );
    }
  }
  const script = args[i];
  if (!command && !script && stdin && verdict.hard.length === 0) {
    // `bash <<'EOF'` runs the here-document: judged like a -c script when bash expands nothing in it.
    if (stdin.kind !== "static") verdict.hard.push(`${name} runs a here-document whose text is not static`);
    else {
      verdict.scripts.push({ script: stdin, label: `${name} ${stdin.text}` });
      verdict.notes.push("runs its here-document, judged below as separate sub-commands");
    }
    return;
  }
  if (!command) {
    verdict.hard.push(
      script
        ? `${name} runs the script ${script.text}, which the policy cannot see`
        : `${name} reads commands from its input`,
    );
    return;
  }
  if (!script || script.kind === "dynamic" || script.kind === "glob") {
    verdict.hard.push(`the script given to ${name} -c is not static`);
    return;
  }
  verdict.scripts.push({ script, label: `${name} -c` });
  verdict.notes.push(`runs its -c script, judged below as separate sub-commands`);
}

/**
 * A command the policy has no spec for: it asks, and a saved allow rule may lift that, but never for
 * words it cannot see or paths that leave the workspace (checked as reads, the least a command does).
 */
// Options of any program that take a file of file names (tar's and rsync's --files-from), and the
// short spellings of known programs; cpio -o and -p take the names on standard input, always.
const LIST_OPTION = /^--(?:files0?-from|file-list|filelist)(?:=|$)/;
const LIST_SHORT: Record<string, RegExp> = {
  tar: /^-[A-Za-z]*T/,
  bsdtar: /^-[A-Za-z]*T/,
  zip: /^-[A-Za-z]*@/,
};

function judgeUnknown(name: string, args: readonly ShellWord[], verdict: Verdict): void {
  verdict.soft.push(`${name} is not in the read-only allowlist`);
  if (name === "cpio") verdict.hard.push("cpio reads the names of the files it copies from its input");
  for (const word of args) {
    if (word.kind === "dynamic") {
      verdict.hard.push(`"${word.text}" is not static`);
      continue;
    }
    // Its options are unknown, so every word may name a file it reads (`curl -T id_rsa`, `-o/etc/x`):
    // operands, `--flag=VALUE` values and what follows a short flag's letter are all judged as reads.
    const text = word.value;
    if (LIST_OPTION.test(text) || LIST_SHORT[name]?.test(text) || (text.startsWith("@") && text.length > 1))
      verdict.hard.push(
        `${name} ${text}: its file names (or options) come from a file the policy cannot see`,
      );
    let value = text;
    if (text.startsWith("--")) value = text.includes("=") ? text.slice(text.indexOf("=") + 1) : "";
    else if (text.startsWith("-")) value = text.slice(2);
    if (value !== "" && value !== "-") verdict.paths.push({ word: { ...word, value }, access: "read" });
  }
}

function applySpec(
  name: string,
  spec: CommandSpec,
  args: readonly ShellWord[],
  verdict: Verdict,
  mode: PolicyMode,
): ParsedArgs {
  const parsed = specArgs(spec, args);
  for (const flag of unknownOptions(spec, parsed))
    verdict.hard.push(
      `${name} ${flag} is not an option the policy knows (GNU tools accept abbreviations, so it may name a dangerous one)`,
    );
  let writes = spec.kind === "write";
  let recursive = spec.recursive === true;
  let names = spec.names === true;
  for (const { flag, value, second } of parsed.flags) {
    if (spec.writeFlags?.includes(flag)) {
      verdict.soft.push(`${name} ${flag} modifies files`);
      writes = true;
    }
    if (spec.execFlags?.includes(flag)) verdict.hard.push(`${name} ${flag} runs other programs`);
    const path = second ?? value;
    if (path && (spec.readPathFlags?.includes(flag) || spec.listFlags?.includes(flag)))
      verdict.paths.push({ word: path, access: "read" });
    if (spec.listFlags?.includes(flag))
      verdict.hard.push(
        `${name} ${flag} reads the names of the files it opens from ${path?.text ?? "a list"}, which the policy cannot see`,
      );
    if (path && spec.writePathFlags?.includes(flag)) verdict.paths.push({ word: path, access: "write" });
    if (path && spec.recursivePathFlags?.includes(flag))
      verdict.paths.push({ word: path, access: "read", recursive: true });
    if (spec.recursiveFlags?.includes(flag)) recursive = true;
    if ((flag === "-d" || flag === "--directories") && value?.value === "recurse") recursive = true;
    if (spec.namesFlags?.includes(flag)) names = true;
  }
  const patternGiven = parsed.flags.some((f) => spec.patternFlags?.includes(f.flag));
  const operands = spec.patternFirst && !patternGiven ? parsed.positionals.slice(1) : parsed.positionals;
  if (spec.kind !== "none") {
    // A recursive search with no folder named searches the current one (grep -r, rg).
    const searched = recursive && operands.length === 0 && !writes ? [staticWord(".")] : operands;
    for (const [index, word] of searched.entries()) {
      if (index === spec.outputOperand) {
        verdict.paths.push({ word, access: "write" });
        verdict.soft.push(`${name} writes its operand ${word.text}`);
        continue;
      }
      verdict.paths.push({ word, access: writes ? "write" : "read", names: names && !writes });
      if (recursive && !names) verdict.paths.push({ word, access: "read", recursive: true });
    }
  }
  const hard = spec.hardCheck?.(parsed);
  if (hard) verdict.hard.push(hard);
  const custom = spec.check?.(parsed);
  if (custom) verdict.soft.push(custom);
  if (spec.always === "ask")
    verdict.soft.push(`${name} deletes or changes files; asked unless a rule allows it`);
  else if (spec.kind === "write" && mode === "read-only")
    verdict.soft.push(`${name} modifies files (read-only mode)`);
  return parsed;
}

function finish(
  argv: readonly string[],
  wrappers: readonly string[],
  foundIn: readonly string[],
  verdict: Verdict,
  state: JudgeState,
): void {
  const paths: PathUse[] = [];
  for (const claim of verdict.paths) checkPath(claim, state, verdict, paths);
  if (verdict.cd !== undefined) {
    if (verdict.cd === null) state.cwds.add(null);
    else
      for (const cwd of [...state.cwds])
        if (cwd !== null)
          for (const landed of cdLandings(
            cwd,
            verdict.cd.value,
            verdict.cdPhysical === true,
            state.realCache,
          ))
            state.cwds.add(landed);
  }
  const reasons: string[] = [];
  let decision: Decision = "allow";
  const rule = argv.every((word) => word !== "") ? matchingRule(state.rules, canonicalArgs(argv)) : undefined;
  if (verdict.deny.length > 0) {
    decision = "deny";
    reasons.push(...verdict.deny);
  } else if (rule?.decision === "deny") {
    decision = "deny";
    reasons.push(`matches the deny rule "${rule.argv.join(" ")}"`);
  } else if (verdict.hard.length > 0) {
    decision = "ask";
  } else if (rule?.decision === "ask") {
    decision = "ask";
    reasons.push(`matches the ask rule "${rule.argv.join(" ")}"`);
  } else if (rule?.decision === "allow") {
    reasons.push(`matches the allow rule "${rule.argv.join(" ")}"`);
  } else if (verdict.soft.length > 0) {
    decision = "ask";
  }
  if (decision !== "allow")
    reasons.push(...verdict.hard, ...(rule?.decision === "allow" ? [] : verdict.soft));
  if (reasons.length === 0) reasons.push(...verdict.notes);
  if (reasons.length === 0)
    reasons.push(
      argv[0] === "(redirection)" || argv[0]?.includes("=") ? "no command runs" : READ_ONLY_REASON,
    );
  const where = foundIn.length > 0 ? foundIn.join(" > ") : "command";
  const report: SubcommandReport = {
    argv,
    foundIn: where,
    context: where,
    wrappers,
    decision,
    reasons: [...new Set(reasons)],
    paths,
  };
  state.reports.push(report);
  if (verdict.hard.length > 0) state.firm.add(report);
  if (verdict.readsSecretObjects) state.readsSecretObjects = true;
}

function shown(word: ShellWord): string {
  return word.kind === "dynamic" ? word.text : word.value;
}
