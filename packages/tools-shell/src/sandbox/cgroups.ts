import { randomBytes } from "node:crypto";
import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A cgroup made for one command: its limits hold for every process it starts, and all can be killed at once. */
export interface CommandCgroup {
  /** Files the command's first process writes its pid into, before it execs anything. */
  readonly procsFiles: readonly string[];
  readonly limits: readonly ("pids" | "memory")[];
  /** Send a signal once to every process in it (a soft stop). */
  signal(signal: NodeJS.Signals): Promise<void>;
  killAll(): Promise<void>;
  remove(): Promise<void>;
}

interface CgroupLayout {
  readonly version: 1 | 2;
  /** Per controller, the folder new cgroups go in. */
  readonly parents: Partial<Record<"pids" | "memory", string>>;
}

let layout: Promise<CgroupLayout | undefined> | undefined;

/** Find where this process may create cgroups with pids and memory limits; undefined when it may not. */
export function cgroupLayout(): Promise<CgroupLayout | undefined> {
  layout ??= detect().catch(() => undefined);
  return layout;
}

async function detect(): Promise<CgroupLayout | undefined> {
  const lines = (await readFile("/proc/self/cgroup", "utf8")).trim().split("\n");
  const parents: CgroupLayout["parents"] = {};
  for (const line of lines) {
    const [, controllers = "", path = "/"] = line.split(":");
    for (const controller of ["pids", "memory"] as const) {
      if (!controllers.split(",").includes(controller)) continue;
      const parent = join("/sys/fs/cgroup", controller, path);
      if (await writableParent(parent, controller === "pids" ? "pids.max" : "memory.limit_in_bytes"))
        parents[controller] = parent;
    }
  }
  if (parents.pids || parents.memory) return { version: 1, parents };
  const unified = lines.find((line) => line.startsWith("0::"));
  if (!unified) return undefined;
  for (const mount of ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]) {
    const parent = join(mount, unified.slice(3));
    const enabled = await readFile(join(parent, "cgroup.subtree_control"), "utf8").catch(() => "");
    const v2: CgroupLayout["parents"] = {};
    if (enabled.includes("pids") && (await writableParent(parent, "pids.max"))) v2.pids = parent;
    if (enabled.includes("memory") && (await writableParent(parent, "memory.max"))) v2.memory = parent;
    if (v2.pids || v2.memory) return { version: 2, parents: v2 };
  }
  return undefined;
}

// Probe by creating (and removing) a child: permissions on cgroupfs say little until one tries.
async function writableParent(parent: string, limitFile: string): Promise<boolean> {
  const probe = join(parent, `bridle-probe-${randomBytes(4).toString("hex")}`);
  try {
    await mkdir(probe);
  } catch {
    return false;
  }
  try {
    await access(join(probe, limitFile));
    return true;
  } catch {
    return false;
  } finally {
    await rmdir(probe).catch(() => {});
  }
}

/** Create a cgroup with the given limits; undefined when cgroups are not available to this process. */
export async function createCgroup(limits: {
  /** "max": no limit, the cgroup only tracks the tree (so a process that leaves its group is still found). */
  pids?: number | "max";
  memoryMb?: number;
}): Promise<CommandCgroup | undefined> {
  const found = await cgroupLayout();
  if (!found) return undefined;
  const name = `bridle-${process.pid}-${randomBytes(6).toString("hex")}`;
  const dirs: string[] = [];
  const applied: ("pids" | "memory")[] = [];
  try {
    if (limits.pids !== undefined && found.parents.pids) {
      const dir = join(found.parents.pids, name);
      await mkdir(dir);
      dirs.push(dir);
      await writeFile(join(dir, "pids.max"), String(limits.pids));
      if (limits.pids !== "max") applied.push("pids");
    }
    if (limits.memoryMb !== undefined && found.parents.memory) {
      const dir = join(found.parents.memory, name);
      if (!dirs.includes(dir)) {
        await mkdir(dir);
        dirs.push(dir);
      }
      const bytes = String(limits.memoryMb * 1024 * 1024);
      await writeFile(join(dir, found.version === 2 ? "memory.max" : "memory.limit_in_bytes"), bytes);
      if (found.version === 2) await writeFile(join(dir, "memory.swap.max"), "0").catch(() => {});
      applied.push("memory");
    }
  } catch (error) {
    await Promise.all(dirs.map((dir) => rmdir(dir).catch(() => {})));
    throw error;
  }
  if (dirs.length === 0) return undefined;
  return {
    procsFiles: dirs.map((dir) => join(dir, "cgroup.procs")),
    limits: applied,
    signal: async (signal) => {
      for (const pid of await members(dirs)) sendSignal(pid, signal);
    },
    killAll: () => killAll(dirs),
    remove: async () => {
      await killAll(dirs);
      await Promise.all(dirs.map((dir) => removeWhenEmpty(dir)));
    },
  };
}

async function members(dirs: readonly string[]): Promise<number[]> {
  const pids: number[] = [];
  for (const dir of dirs) {
    const text = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
    for (const line of text.split("\n")) if (line) pids.push(Number(line));
  }
  return pids;
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

async function killAll(dirs: readonly string[]): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = await members(dirs);
    if (pids.length === 0) return;
    for (const pid of pids) sendSignal(pid, "SIGKILL");
    // A fork bomb can fork between the read and the kill: go again until the cgroup is empty.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function removeWhenEmpty(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await rmdir(dir);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
