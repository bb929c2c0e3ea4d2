import { existsSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { probeRun } from "./probe-run.js";

const IS_ROOT = process.getuid?.() === 0;

/**
 * pid 1 of the command's namespace, after `start` has started the command in the background. The kernel
 * delivers a signal from outside to a namespace's init only when it has a handler, and the namespace
 * dies with it: so a small shell that forwards SIGTERM to the command and waits, rather than the command
 * itself (a bash without a TERM trap would ignore it). Its variables are set after the command started,
 * so they never reach its environment.
 */
function init(start: readonly string[], reportStatus: boolean): string {
  return [
    ...start,
    // The init's own notices (dash reports a child killed by a signal, sometimes, as "Killed") are not the
    // command's output: once the command has its stderr, the init's goes nowhere.
    "exec 2>/dev/null",
    'trap "kill -TERM $child; hit=1" TERM INT HUP',
    // `wait` returns early when a trapped signal arrives: then wait again until the command is really gone.
    'while :; do hit=; wait "$child"; status=$?; [ -n "$hit" ] && kill -0 "$child" || break; done',
    // A warm start learns the status here, without waiting for the spawner (see spawner-client.ts).
    ...(reportStatus ? [`printf '%d\\n' "$status" >&3`] : []),
    'exit "$status"',
  ].join("\n");
}

/**
 * A warm start's init waits, in its fresh namespace, for its request on fd 3: a line with the number of
 * lines of the working folder and of the command, then those lines. It moves to the folder (putting
 * OLDPWD back as it was: a cold start has no `cd`), starts `shell -c COMMAND` without fd 3, and reports
 * the status there when it ends. A request it cannot read ends it with status 125.
 */
function warmStart(shell: string): string[] {
  return [
    'IFS=" " read -r _b_dn _b_cn <&3 || exit 125',
    'case "$_b_dn $_b_cn" in *[!0-9\\ ]*|" "*|*" ") exit 125;; esac',
    "_b_lines() {",
    "  _b_v=; _b_k=0",
    '  while [ "$_b_k" -lt "$1" ]; do',
    "    IFS= read -r _b_l <&3 || exit 125",
    '    if [ "$_b_k" = 0 ]; then _b_v=$_b_l; else _b_v="$_b_v',
    '$_b_l"; fi',
    "    _b_k=$((_b_k + 1))",
    "  done",
    "}",
    '_b_lines "$_b_dn"; _b_dir=$_b_v; _b_lines "$_b_cn"; _b_cmd=$_b_v',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion (is OLDPWD set?)
    'if [ -n "${OLDPWD+x}" ]; then _b_old=$OLDPWD; cd -- "$_b_dir" || exit 125; OLDPWD=$_b_old',
    'else cd -- "$_b_dir" || exit 125; unset OLDPWD; fi',
    `${shell} -c "$_b_cmd" 3<&- & child=$!`,
  ];
}

/**
 * The names a warm start's init sets before the command starts (all `_b_…`, read off its script): a
 * command whose environment has one of them starts cold, or it would see the init's value instead of its own.
 */
export const WARM_INIT_NAMES: ReadonlySet<string> = new Set(
  warmStart("")
    .join("\n")
    .match(/\b_b_\w+/g),
);

/** The request a warm start's init reads (see warmStart). */
export function warmRequest(cwd: string, command: string): string {
  const lines = (text: string) => text.split("\n").length;
  return `${lines(cwd)} ${lines(command)}\n${cwd}\n${command}\n`;
}

/** The init of a namespace whose command is its arguments: a cold start's, and the spawner's. */
const FORWARD = init(['"$@" & child=$!'], false);

export interface PidNamespaceProbe {
  readonly available: boolean;
  readonly reason?: string;
}

/**
 * The argv prefix that runs a command in its own pid namespace with a fresh /proc (util-linux
 * `unshare`; as another user than root it needs unprivileged user namespaces). `setpriv --pdeathsig`
 * makes the whole tree die with the agent even when the agent is killed with SIGKILL: unshare gets
 * SIGKILL, `--kill-child` passes it on to the namespace's init, and the kernel ends every process inside.
 */
export function pidNamespacePrefix(): string[] {
  return namespaceChain(FORWARD, { deathSignal: true, mountProc: true });
}

/**
 * A chain started ahead of its command (see warm.ts): the same namespace, whose init waits for the
 * command on fd 3 and runs it with `shell`. Without `deathSignal` (a chain the spawner starts: the
 * spawner's own namespace ends it with the spawner) it has no setpriv in front.
 */
export function warmChainArgv(shell: string, options: { readonly deathSignal: boolean }): string[] {
  return namespaceChain(init(warmStart(shell), true), { deathSignal: options.deathSignal, mountProc: true });
}

/**
 * What the spawner process runs behind (spawner-client.ts): a pid namespace of its own, whose init is
 * the same forwarding shell. When the spawner ends, however it ends, the kernel ends every process in
 * that namespace, every chain it started and their namespaces included; and the init reaps whatever is
 * left to it. Its /proc stays the agent's, so the spawner can tell the agent's numbers for its chains.
 */
export function spawnerNamespacePrefix(): string[] {
  return namespaceChain(FORWARD, { deathSignal: true, mountProc: false });
}

function namespaceChain(
  script: string,
  options: { readonly deathSignal: boolean; readonly mountProc: boolean },
): string[] {
  return [
    ...(options.deathSignal ? deathSignalPrefix() : []),
    systemProgram("unshare"),
    "--pid",
    "--fork",
    "--kill-child",
    ...(options.mountProc ? ["--mount-proc"] : []),
    ...(IS_ROOT ? [] : ["--map-current-user"]),
    "--",
    "/bin/sh",
    "-c",
    script,
    "sh",
  ];
}

/** Without a namespace, setpriv alone still ties the command's first process to the agent's life. */
export function deathSignalPrefix(): string[] {
  return [systemProgram("setpriv"), "--pdeathsig", "KILL", "--"];
}

/**
 * A program from the system's own folders, never found through PATH: a PATH entry the workspace can
 * write (`./node_modules/.bin`) would let a command replace the wrapper that confines the next one.
 */
export function systemProgram(name: string): string {
  for (const dir of ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"]) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return name;
}

/** A program on PATH, looking only in absolute folders (never one relative to the workspace). */
export function programOnPath(name: string): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return systemProgram(name);
}

let probes: Map<string, Promise<PidNamespaceProbe>> | undefined;

/** Whether `argv prefix + true` runs here; cached per prefix. */
export function probePrefix(prefix: readonly string[], what: string): Promise<PidNamespaceProbe> {
  probes ??= new Map();
  const key = prefix.join("\0");
  let probe = probes.get(key);
  if (!probe) {
    probe = (async () => {
      const [file = "", ...args] = [...prefix, "/bin/sh", "-c", "echo ok"];
      const trial = await probeRun(file, args, {
        timeoutMs: 10_000,
        env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
      });
      if (!trial.failed && trial.stdout.trim() === "ok") return { available: true };
      const why = (trial.stderr || trial.message).trim().slice(0, 300);
      return { available: false, reason: `${what} failed here: ${why}` };
    })();
    probes.set(key, probe);
  }
  return probe;
}
