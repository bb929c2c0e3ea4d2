// V8's compile cache for the modules every run loads (the CLI, core, the tools, the provider's SDK): a
// start then reads compiled code instead of compiling some megabytes of JavaScript again.
import * as nodeModule from "node:module";
import { join } from "node:path";

// Read from the namespace, not imported by name: on a Node without it (20), a named import would fail the
// whole CLI at load, before main.ts can say which Node it needs.
const enableCompileCache = (nodeModule as { enableCompileCache?: (dir: string) => unknown })
  .enableCompileCache;

/**
 * Turns the cache on in the user's Bridle config folder. Code cached there runs as the CLI itself, so it
 * lives where nothing the agent runs may write: the workspace refuses that folder to the file tools and the
 * sandbox masks it (a shared folder such as Node's default, under the temporary directory, would let
 * another local user plant code). NODE_COMPILE_CACHE, when set, has already chosen a folder;
 * NODE_DISABLE_COMPILE_CACHE turns it off.
 */
export async function startCompileCache(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env.NODE_COMPILE_CACHE || typeof enableCompileCache !== "function") return;
  const { userConfigFolder } = await import("@bridle/core/node");
  try {
    enableCompileCache(join(userConfigFolder(env), "compile-cache"));
  } catch {
    // A folder that cannot be made (a read-only home) only costs the start its speed.
  }
}
