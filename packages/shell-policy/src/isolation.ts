// Where the policy parses: V8 tiers the bash grammar's lexer (one ~160 KB wasm function) up to TurboFan
// after a few hundred parses, and that single compile takes ~800 MB of compiler memory (measured with
// --trace-wasm-compilation-times). V8 reads the only switch that avoids it, --liftoff-only, at start-up,
// so a library cannot set it for its host process. A process started without it sends each check to a
// policy process of its own that has the flag; a process that has it judges in place.

/** How a CommandPolicy judges: in this process, in a policy process, or chosen by this process's flags. */
export type PolicyIsolation = "auto" | "inline" | "process";

export function hasLiftoffOnly(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): boolean {
  const words = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)];
  return words.some((word) => word === "--liftoff-only" || word === "--liftoff_only");
}

export function judgesInPlace(isolation: PolicyIsolation = "auto"): boolean {
  if (isolation !== "auto") return isolation === "inline";
  // Electron and other embedders: process.execPath is not a node that takes node's flags.
  if (process.versions.electron !== undefined || process.release.name !== "node") return true;
  return hasLiftoffOnly();
}
