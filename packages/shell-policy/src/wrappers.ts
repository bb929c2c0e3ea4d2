import type { ClassRule } from "./examples.js";
import { type OptionTable, optionTable } from "./options.js";

/** Commands that run the rest of their arguments as another command. */
export interface WrapperSpec {
  /** Every option it has: any other spelling (an abbreviation such as `env --split-str`) asks. */
  readonly options: OptionTable;
  /** Positional words it consumes before the wrapped command (timeout's duration). */
  readonly skip?: number;
  /** It changes who runs the command: always asks, never saved. */
  readonly privilege?: boolean;
  /** It accepts NAME=VALUE words before the command (env). */
  readonly assignments?: boolean;
  /** Flags after which it does not run a command but prints something (command -v). */
  readonly inspectFlags?: readonly string[];
  /** Flags the policy cannot follow (env -S splits a string into a command line). */
  readonly opaqueFlags?: readonly string[];
  /** Flags whose value is a file it writes (GNU time -o). */
  readonly writePathFlags?: readonly string[];
  /** Flags that start an interactive shell instead of a command (sudo -s). */
  readonly shellFlags?: readonly string[];
  /**
   * Flags whose value names a variable it sets or unsets in the environment of what it runs (env -u,
   * xargs --process-slot-var): judged like an assignment, since PATH or BASH_ENV set this way chooses
   * what runs as surely as `PATH=… cmd` does.
   */
  readonly envFlags?: readonly string[];
}

/**
 * The class "a program that sets the environment of the program it runs": every way to do it is a
 * redefinition (judged by variables.ts like `NAME=value cmd`), with examples the rule table checks.
 */
export const ENVIRONMENT_SETTERS: ClassRule = {
  why: "assignments (env NAME=…), unsets (env -u) and variables a wrapper sets for what it runs are redefinitions",
  examples: [
    ["echo x | xargs --process-slot-var=PATH echo", "ask"],
    ["echo x | xargs --process-slot-var PATH echo", "ask"],
    ["echo x | xargs --process-slot-var=COLUMNS echo", "allow"],
    ["env PATH=. ls", "ask"],
    ["env -u PATH ls", "ask"],
    ["env --unset=BASH_ENV bash -c ls", "ask"],
    ["env -S 'ls -la'", "ask"],
    ["env -C /tmp ls", "ask"],
    ["env --chdir=src ls", "ask"],
    ["env LC_ALL=C sort src/a.ts", "allow"],
    ["find src -name a.ts -exec env BASH_ENV=planted.sh bash -c ls {} +", "ask"],
    ["timeout 5 env GIT_DIR=evil/.git git status", "ask"],
    ["nice -n 5 env PAGER=cat ls", "allow"],
    ["stdbuf -oL env LD_PRELOAD=x.so ls", "ask"],
    ["xargs -a list.txt --process-slot-var=BASH_ENV bash -c ls", "block"],
  ],
};

const HELP = "help version";

export const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    options: optionTable(
      "i0u:C:S:v",
      `ignore-environment null unset= chdir= split-string= block-signal=? default-signal=? ignore-signal=?
       list-signal-handling debug ${HELP}`,
    ),
    assignments: true,
    opaqueFlags: ["-S", "--split-string", "-C", "--chdir"],
    envFlags: ["-u", "--unset"],
  },
  sudo: {
    options: optionTable(
      "AbBEeHiKklnPSsVvu:g:h:p:C:D:r:t:U:T:R:",
      `askpass background bell preserve-env=? edit set-home login remove-timestamp reset-timestamp list
       non-interactive preserve-groups stdin shell validate user= group= host= prompt= close-from= chdir=
       role= type= other-user= command-timeout= chroot= ${HELP}`,
    ),
    privilege: true,
    shellFlags: ["-s", "--shell", "-i", "--login"],
  },
  doas: { options: optionTable("nsu:C:L", ""), privilege: true, shellFlags: ["-s"] },
  pkexec: { options: optionTable("", `user= disable-internal-agent keep-cwd ${HELP}`), privilege: true },
  su: {
    options: optionTable(
      "c:s:g:G:lmpfPw:",
      `command= shell= group= supp-group= login preserve-environment pty whitelist-environment= session-command= ${HELP}`,
    ),
    privilege: true,
    opaqueFlags: ["-c", "--command", "--session-command"],
  },
  nice: { options: optionTable("n:0123456789", `adjustment= ${HELP}`) },
  nohup: { options: optionTable("", HELP) },
  timeout: {
    options: optionTable("s:k:v", `signal= kill-after= preserve-status foreground verbose ${HELP}`),
    skip: 1,
  },
  stdbuf: { options: optionTable("i:o:e:", `input= output= error= ${HELP}`) },
  command: { options: optionTable("pvV", ""), inspectFlags: ["-v", "-V"] },
  exec: { options: optionTable("a:cl", "") },
  time: {
    options: optionTable("f:o:apvq", `format= output= append portability verbose quiet ${HELP}`),
    writePathFlags: ["-o", "--output"],
  },
  setsid: { options: optionTable("cfw", `ctty fork wait ${HELP}`) },
  builtin: { options: optionTable("", "") },
  ionice: { options: optionTable("c:n:p:P:u:t", `class= classdata= pid= pgid= uid= ignore ${HELP}`) },
  xargs: {
    options: optionTable(
      "0a:d:E:e::I:i::L:l::n:P:s:prtxo",
      `null arg-file= delimiter= eof=? replace=? max-lines=? max-args= max-procs= max-chars= interactive
       verbose exit no-run-if-empty show-limits process-slot-var= open-tty ${HELP}`,
    ),
    envFlags: ["--process-slot-var"],
  },
};

/** Shells: `-c SCRIPT` is parsed and judged; anything else runs code the policy cannot see. */
export const SHELLS = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "fish",
  "busybox",
  "eval",
  "source",
  ".",
]);

/** Shells whose `-c` script is bash (or POSIX sh) syntax, so the policy's parser reads it as they will. */
export const JUDGED_SHELLS = new Set(["bash", "sh", "dash"]);

/**
 * Options a judged shell may take before `-c`: none of them reads a startup file the command chose
 * (`--rcfile`, `-i` reads ~/.bashrc), reads commands from input (`-s`) or changes how words expand
 * (`-O dotglob`, `+o noglob`).
 */
export const SHELL_SAFE_FLAGS = new Set([
  "-c",
  "-e",
  "-u",
  "-x",
  "-v",
  "-l",
  "--login",
  "--norc",
  "--noprofile",
  "--posix",
]);
export const SHELL_SAFE_SETS = new Set(["pipefail", "errexit", "nounset", "xtrace", "verbose", "posix"]);

/** Tools that run code the workspace defines (package scripts, Makefiles, build files, test files, config). */
const SCRIPT_RUNNERS = new Set([
  "make",
  "gmake",
  "just",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "cargo",
  "go",
  "pytest",
  "py.test",
  "tox",
  "nox",
  "gradle",
  "mvn",
  "rake",
  "bundle",
  "composer",
  "dotnet",
  "cmake",
  "ctest",
  "ninja",
  "meson",
  "ant",
  "sbt",
  "mix",
  "vitest",
  "jest",
  "mocha",
  "eslint",
  "prettier",
  "tsc",
  "turbo",
  "nx",
  "lerna",
  "vite",
  "webpack",
  "rollup",
  "playwright",
  "cypress",
  "phpunit",
  "rspec",
  "swift",
  "poetry",
  "pipenv",
  "hatch",
  "pdm",
  "pre-commit",
  "lefthook",
  "biome",
  "git",
]);

/**
 * Why no allow rule may be suggested for a tool that runs the workspace's own code: a saved rule would
 * outlive any change to that code (a rule bound to the script's content is not supported).
 */
export function scriptRunnerReason(name: string, first: string | undefined): string | undefined {
  if (!SCRIPT_RUNNERS.has(name)) return undefined;
  if (name === "git")
    return `git ${first ?? ""} can run the repository's hooks and configured programs`.replace("  ", " ");
  return `${name} runs code the workspace defines (scripts, build files, tests, config); a saved rule would outlive a change to it`;
}

/**
 * Builtins that run code from strings or change how later commands are found (trap handlers, `fc`
 * re-running history, `enable -f` loading a shared object, `hash -p` remapping a name, aliases): always
 * asked, never saved.
 */
export const CODE_BUILTINS = new Set([
  "trap",
  "fc",
  "enable",
  "hash",
  "bind",
  "complete",
  "compgen",
  "alias",
  "shopt",
  "mapfile",
  "readarray",
  "coproc",
]);

/** Interpreters run inline code (python -c, node -e, perl -e) or scripts: always asked, never saved. */
const INTERPRETERS = new Set([
  "python",
  "python2",
  "python3",
  "pypy",
  "pypy3",
  "node",
  "nodejs",
  "deno",
  "bun",
  "perl",
  "ruby",
  "irb",
  "php",
  "lua",
  "luajit",
  "Rscript",
  "R",
  "tclsh",
  "wish",
  "osascript",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "jshell",
  "ts-node",
  "tsx",
  "pwsh",
  "powershell",
  "expect",
  "gdb",
]);

export function isInterpreter(name: string): boolean {
  return (
    INTERPRETERS.has(name) ||
    /^python[0-9.]+$/.test(name) ||
    /^perl[0-9.]+$/.test(name) ||
    /^ruby[0-9.]+$/.test(name)
  );
}

/** Open-ended package runners: they fetch and run arbitrary packages. Always asked, never saved. */
const PACKAGE_RUNNERS = new Set(["npx", "pnpx", "bunx", "uvx"]);
const PACKAGE_RUNNER_SUBCOMMANDS: Record<string, readonly string[]> = {
  npm: ["exec", "x"],
  pnpm: ["dlx", "exec"],
  yarn: ["dlx", "exec"],
  bun: ["x"],
  pipx: ["run"],
  uv: ["run", "tool"],
  corepack: ["npx", "pnpx"],
};

export function isPackageRunner(name: string, first: string | undefined): boolean {
  if (PACKAGE_RUNNERS.has(name)) return true;
  return first !== undefined && (PACKAGE_RUNNER_SUBCOMMANDS[name]?.includes(first) ?? false);
}

/** Why an allow rule for this argv must never be saved, or undefined. */
export function neverSaveReason(argv: readonly string[]): string | undefined {
  const name = argv[0] ?? "";
  if (SHELLS.has(name)) return `${name} is a shell: an allow rule would allow any command`;
  if (CODE_BUILTINS.has(name)) return `${name} can run or redirect arbitrary code`;
  if (isInterpreter(name)) return `${name} is an interpreter: an allow rule would allow any code`;
  if (WRAPPERS[name]?.privilege) return `${name} runs commands with other privileges`;
  if (WRAPPERS[name]) return `${name} wraps another command: write the rule for that command`;
  if (isPackageRunner(name, argv[1]))
    return `${argv.slice(0, 2).join(" ")} downloads and runs arbitrary packages`;
  return undefined;
}
