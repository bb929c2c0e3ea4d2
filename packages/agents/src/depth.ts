import type { AnyTool } from "@bridle/core";

/**
 * What makes a tool one that starts or drives subagents, whatever it is called. Names are not identity: an
 * application renames tools for a model family, wraps them for approval or logging, or copies them with
 * `{ ...tool, name }`. So the guard works in two layers:
 *
 * - statically, a marker the tool object carries (a symbol-keyed own property, which object spread copies)
 *   and the identity of its `execute` function (shared by any copy that reuses it) keep the agent tools out
 *   of a child's tool list unless the child may spawn;
 * - at run time, every spawn and send asks how deep the calling run is. The depth of a run is known only
 *   to the Agents that started it (by the run id it chose), so a wrapper around the spawn tool, however it
 *   was built, still reaches a check it cannot rename its way around.
 */
const SPAWNS: unique symbol = Symbol.for("@bridle/agents.spawns");

const EXECUTES = new WeakSet<object>();

/** Marks an agent tool (in place, before it is frozen into a list) and returns it. */
export function markSpawning(tool: AnyTool): AnyTool {
  Object.defineProperty(tool, SPAWNS, { value: true, enumerable: true });
  EXECUTES.add(tool.execute);
  return tool;
}

/** Whether this tool is, or was copied from, a tool that starts or drives subagents. */
export function isSpawning(tool: AnyTool): boolean {
  return (tool as { [SPAWNS]?: unknown })[SPAWNS] === true || EXECUTES.has(tool.execute);
}

/**
 * Runs started by an Agents, by run id, with their depth (1: a child of a top-level run). A run nobody
 * registered is a top-level run: depth 0. Shared by every Agents in the process, so a spawn tool of one
 * Agents handed to another's child is still held to the child's depth.
 */
const DEPTHS = new Map<string, number>();

export function depthOf(runId: string): number {
  return DEPTHS.get(runId) ?? 0;
}

/** Registers a child run before it starts; the returned function forgets it once the run ended. */
export function registerChild(runId: string, depth: number): () => void {
  DEPTHS.set(runId, depth);
  return () => {
    DEPTHS.delete(runId);
  };
}
