/** Commands that run the rest of their arguments as another command. */
export interface WrapperSpec {
  readonly values: readonly string[];
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
}

export const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    values: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
    assignments: true,
    opaqueFlags: ["-S", "--split-string", "-C", "--chdir"],
  },
  sudo: {
    values: [
      "-u",
      "--user",
      "-g",
      "--group",
      "-h",
      "--host",
      "-p",
      "--prompt",
      "-C",
      "--close-from",
      "-D",
      "--chdir",
      "-r",
      "--role",
      "-t",
      "--type",
      "-U",
      "--other-user",
      "-T",
      "--command-timeout",
    ],
    privilege: true,
    shellFlags: ["-s", "--shell", "-i", "--login"],
  },
  doas: { values: ["-u", "-C"], privilege: true, shellFlags: ["-s"] },
  pkexec: { values: ["--user"], privilege: true },
  su: {
    values: ["-c", "--command", "-s", "--shell", "-g", "--group", "-G"],
    privilege: true,
    opaqueFlags: ["-c", "--command"],
  },
  nice: { values: ["-n", "--adjustment"] },
  nohup: { values: [] },
  timeout: { values: ["-s", "--signal", "-k", "--kill-after"], skip: 1 },
  stdbuf: { values: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  command: { values: [], inspectFlags: ["-v", "-V"] },
  exec: { values: ["-a"] },
  time: { values: ["-f", "--format", "-o", "--output"], writePathFlags: ["-o", "--output"] },
  setsid: { values: [] },
  builtin: { values: [] },
  ionice: { values: ["-c", "--class", "-n", "--classdata", "-t"] },
  chrt: { values: [], skip: 1 },
  xargs: {
    values: [
      "-a",
      "--arg-file",
      "-d",
      "--delimiter",
      "-E",
      "-e",
      "--eof",
      "-I",
      "-i",
      "--replace",
      "-L",
      "-l",
      "--max-lines",
      "-n",
      "--max-args",
      "-P",
      "--max-procs",
      "-s",
      "--max-chars",
      "--process-slot-var",
    ],
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

export const SHELL_VALUE_FLAGS = new Set(["-o", "-O", "+o", "+O", "--rcfile", "--init-file"]);

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
