// What a turn's first tool call waits for: work the front door starts with the turn that no model request
// needs (the rewind checkpoint's listing of the workspace), so the first request goes out while it runs
// and no tool changes a file before it is done. Held per workspace: a tool of another session in the same
// workspace (ACP serves several) must not change a file under the listing either, and sessions in other
// workspaces do not wait.
import { resolve } from "node:path";
import { type AnyHook, defineHook } from "@bridle/core";

const pending = new Map<string, Set<Promise<unknown>>>();

/** Hold every tool call in workspace `cwd` until `work` has settled (however it ends: it says its own failures). */
export function holdToolsUntil(cwd: string, work: Promise<unknown>): void {
  const root = resolve(cwd);
  const held = pending.get(root) ?? new Set<Promise<unknown>>();
  pending.set(root, held);
  const settled = work.then(
    () => {},
    () => {},
  );
  held.add(settled);
  void settled.then(() => {
    held.delete(settled);
    if (held.size === 0 && pending.get(root) === held) pending.delete(root);
  });
}

/** Resolves once nothing holds tool calls in workspace `cwd` (what the hook below waits for). */
export async function toolsMayRun(cwd: string): Promise<void> {
  const root = resolve(cwd);
  for (let held = pending.get(root); held && held.size > 0; held = pending.get(root)) await Promise.all(held);
}

/** The hook an agent working in `cwd` runs before each tool call, ahead of every other hook. */
export function toolGateHook(cwd: string): AnyHook {
  return defineHook({
    event: "before_tool_call",
    name: "cli: wait for the turn's checkpoint",
    handler: () => toolsMayRun(cwd),
  });
}
