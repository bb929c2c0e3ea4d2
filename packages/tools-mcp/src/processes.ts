import { readdir, readFile } from "node:fs/promises";

/**
 * The live descendants of a process, read from /proc (Linux only; elsewhere none are known). A server
 * launched through a wrapper (npx, a shell script, uvx) runs as a grandchild that closing the wrapper's
 * pipes does not always stop, so these are collected before shutdown and stopped after it.
 */
export async function descendantPids(root: number): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return;
      const ppid = await parentPid(Number(entry));
      if (ppid === undefined) return;
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    }),
  );
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

async function parentPid(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses: fields are counted after its last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** SIGTERM, then SIGKILL for whatever is still there after `graceMs`. */
export async function stopProcesses(pids: readonly number[], graceMs: number): Promise<void> {
  const alive = pids.filter(isAlive);
  if (alive.length === 0) return;
  for (const pid of alive) signal(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && alive.some(isAlive)) await new Promise((r) => setTimeout(r, 25));
  for (const pid of alive) if (isAlive(pid)) signal(pid, "SIGKILL");
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}
