import { parseArgs } from "./argv.js";
import { nameOperandRisk, variableRisk } from "./variables.js";
import type { Verdict } from "./verdict.js";
import type { ShellWord } from "./words.js";

/**
 * Builtins that take variable names: bash evaluates a subscript in any of them as arithmetic, which
 * runs code (`unset 'a[$(cmd)]'`, `read 'a[$(cmd)]'`, `printf -v 'a[$(cmd)]'`, `test -v 'a[$(cmd)]'`),
 * and a name such as PATH changes what later commands are. Options that change how later assignments
 * are evaluated (`declare -i`, `declare -n`) ask.
 */

// declare-family options that only mark or print variables.
const DECLARE_FLAGS: Record<string, string> = {
  declare: "xrgplutaAfF",
  typeset: "xrgplutaAfF",
  local: "xrplutaA",
  export: "npf",
  readonly: "aAfp",
  unset: "vfn",
};

// `set -o NAME` options that only make the shell stricter or louder.
const SAFE_SET_OPTIONS = new Set(["pipefail", "errexit", "nounset", "xtrace", "verbose"]);

/** Judge a variable builtin; false when `name` is not one. */
export function judgeVariableBuiltin(name: string, args: readonly ShellWord[], verdict: Verdict): boolean {
  const allowed = DECLARE_FLAGS[name];
  if (allowed !== undefined) {
    declaration(name, allowed, args, verdict);
    return true;
  }
  switch (name) {
    case "set":
      for (let i = 0; i < args.length; i++) {
        const value = args[i]?.value ?? "";
        if (value === "--" || value === "-") break;
        if (!/^[-+]/.test(value) || args[i]?.kind === "dynamic") break;
        for (const letter of value.slice(1)) {
          if (letter === "o") {
            const option = args[++i]?.value ?? "";
            if (!SAFE_SET_OPTIONS.has(option))
              verdict.hard.push(`set -o ${option} changes how the shell reads later commands`);
          } else if (!"euxv".includes(letter))
            verdict.hard.push(`set ${value[0]}${letter} changes how the shell reads later commands`);
        }
      }
      return true;
    case "let":
      verdict.hard.push("let evaluates arithmetic, which runs code hidden in variables and subscripts");
      return true;
    case "read":
      names(
        parseArgs(args, { values: new Set(["-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u"]) }),
        ["-a"],
        verdict,
        "read",
      );
      return true;
    case "printf":
    case "wait": {
      // printf -v NAME and wait -p NAME assign NAME; printf's options end at its format.
      const flag = name === "printf" ? "-v" : "-p";
      const words = name === "printf" ? args.slice(0, 2) : args;
      names(
        parseArgs(words, { values: new Set([flag]), stopAtPositional: name === "printf" }),
        [flag],
        verdict,
        name,
        false,
      );
      return false;
    }
    case "getopts": {
      const target = args[1];
      if (target) pushRisk(nameOperandRisk(target), verdict);
      return true;
    }
    case "test":
    case "[":
      for (let i = 0; i < args.length - 1; i++)
        if (args[i]?.value === "-v") pushRisk(nameOperandRisk(args[i + 1] as ShellWord), verdict);
      return false;
    default:
      return false;
  }
}

function declaration(name: string, allowed: string, args: readonly ShellWord[], verdict: Verdict): void {
  for (const word of args) {
    if (word.kind === "dynamic") {
      verdict.hard.push(`${name} "${word.text}": a computed name or option, which bash may evaluate as code`);
      continue;
    }
    const value = word.value;
    if ((value.startsWith("-") || value.startsWith("+")) && value.length > 1) {
      for (const letter of value.slice(1))
        if (!allowed.includes(letter))
          verdict.hard.push(`${name} ${value[0]}${letter} changes how later assignments are evaluated`);
      continue;
    }
    const eq = value.indexOf("=");
    const target = eq === -1 ? value : value.slice(0, eq).replace(/\+$/, "");
    pushRisk(variableRisk(target, eq === -1 ? undefined : { ...word, value: value.slice(eq + 1) }), verdict);
  }
}

function names(
  parsed: ReturnType<typeof parseArgs>,
  nameFlags: readonly string[],
  verdict: Verdict,
  command: string,
  positionalNames = true,
): void {
  for (const flag of parsed.flags)
    if (nameFlags.includes(flag.flag)) {
      if (flag.value) pushRisk(nameOperandRisk(flag.value), verdict);
      else verdict.hard.push(`${command} ${flag.flag} without a name`);
    }
  if (positionalNames) for (const word of parsed.positionals) pushRisk(nameOperandRisk(word), verdict);
}

function pushRisk(risk: string | undefined, verdict: Verdict): void {
  if (risk) verdict.hard.push(risk);
}
