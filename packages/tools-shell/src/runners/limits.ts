import { type CommandCgroup, cgroupLayout, createCgroup } from "../sandbox/cgroups.js";
import type { LimitEnforcement, SandboxPolicy } from "../sandbox/policy.js";

const IS_ROOT = process.getuid?.() === 0;

export interface LimitSetup {
  readonly cgroup?: CommandCgroup;
  readonly ulimits: readonly string[];
}

/**
 * How the process and memory limits will hold: a cgroup when this process may create one, else rlimits.
 * `nprocScope` says what RLIMIT_NPROC counts for this runner (it is ignored for root).
 */
export async function processLimits(policy: SandboxPolicy, nprocScope: string): Promise<LimitEnforcement[]> {
  const layout = await cgroupLayout();
  const out: LimitEnforcement[] = [];
  if (policy.max_processes !== undefined) {
    if (layout?.parents.pids)
      out.push({ limit: "max_processes", enforced: true, how: `cgroup v${layout.version} pids.max` });
    else if (!IS_ROOT)
      out.push({
        limit: "max_processes",
        enforced: true,
        how: `RLIMIT_NPROC (ulimit -u), which counts ${nprocScope}`,
      });
    else
      out.push({
        limit: "max_processes",
        enforced: false,
        how: "running as root, where RLIMIT_NPROC does not apply, and no writable cgroup was found",
      });
  }
  if (policy.max_memory_mb !== undefined) {
    if (layout?.parents.memory)
      out.push({ limit: "max_memory_mb", enforced: true, how: `cgroup v${layout.version} memory limit` });
    else
      out.push({
        limit: "max_memory_mb",
        enforced: true,
        how: "RLIMIT_AS (ulimit -v): address space, which JIT runtimes reserve far beyond what they use",
      });
  }
  return out;
}

/** Whether a command's whole process tree is tracked by a cgroup (else only its process group is signalled). */
export async function tracksTree(): Promise<boolean> {
  return (await cgroupLayout())?.parents.pids !== undefined;
}

/** Create what `processLimits` promised for one command. */
export async function setupLimits(policy: SandboxPolicy, options: { track: boolean }): Promise<LimitSetup> {
  const { max_processes: pids, max_memory_mb: memoryMb } = policy;
  // Even without limits a cgroup can be worth having: it finds every process of the command, including
  // one that started its own session and so left the process group a timeout or abort signals. Joining
  // one costs a cgroup migration (about 10 ms on cgroup v1), so runners that track otherwise opt out.
  if (pids === undefined && memoryMb === undefined && !options.track) return { ulimits: [] };
  const cgroup = await createCgroup({ pids: pids ?? "max", ...(memoryMb === undefined ? {} : { memoryMb }) });
  const ulimits: string[] = [];
  if (pids !== undefined && !cgroup?.limits.includes("pids") && !IS_ROOT) ulimits.push(`-u ${pids}`);
  if (memoryMb !== undefined && !cgroup?.limits.includes("memory")) ulimits.push(`-v ${memoryMb * 1024}`);
  return { ...(cgroup ? { cgroup } : {}), ulimits };
}
