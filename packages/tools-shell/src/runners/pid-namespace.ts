import { existsSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { execa } from "execa";

const IS_ROOT = process.getuid?.() === 0;

/**
 * pid 1 of the command's namespace. The kernel delivers a signal from outside to a namespace's init
 * only when it has a handler, and the namespace dies with it: so a small shell that forwards SIGTERM
 * to the command and waits, rather than the command itself (a bash without a TERM trap would ignore it).
 */
const INIT = [
  // The init's own notices (dash reports a child killed by a signal, sometimes, as "Killed") are not the
  // command's output: once the command has its stderr, the init's goes nowhere.
  '"$@" & child=$!',
  "exec 2>/dev/null",
  'trap "kill -TERM $child 2>/dev/null" TERM INT HUP',
  // `wait` returns early when a trapped signal arrives: wait again until the command is really gone.
  'while :; do wait "$child"; status=$?; kill -0 "$child" 2>/dev/null || exit "$status"; done',
].join("\n");

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
  return [
    ...deathSignalPrefix(),
    systemProgram("unshare"),
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    ...(IS_ROOT ? [] : ["--map-current-user"]),
    "--",
    "/bin/sh",
    "-c",
    INIT,
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
      const trial = await execa(file, args, {
        reject: false,
        timeout: 10_000,
        env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
        extendEnv: false,
      });
      if (!trial.failed && trial.stdout.trim() === "ok") return { available: true };
      const why = (trial.stderr || trial.shortMessage || "").trim().slice(0, 300);
      return { available: false, reason: `${what} failed here: ${why}` };
    })();
    probes.set(key, probe);
  }
  return probe;
}
