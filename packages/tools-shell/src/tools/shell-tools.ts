import type { AnyHook, AnyTool } from "@bridle/core";
import { BackgroundCommands } from "./background.js";
import { createBashTool } from "./bash.js";
import { ShellEnvironment, type ShellToolsOptions } from "./environment.js";

export interface ShellTools {
  /** bash, bash_start, bash_output, bash_stop, bash_list. */
  readonly tools: AnyTool[];
  readonly bash: AnyTool;
  /** Stops a run's background commands when it ends: pass them to the Harness. */
  readonly hooks: AnyHook[];
  readonly environment: ShellEnvironment;
  /** Stop every background command (a CLI calls it on exit). */
  stopAll(): Promise<void>;
}

/**
 * The shell tools over one runner and policy. Async because it checks the runner first (bubblewrap must
 * work here) and learns which limits it enforces; the ones it cannot are named in bash's description.
 */
export async function createShellTools(options: ShellToolsOptions = {}): Promise<ShellTools> {
  const environment = await ShellEnvironment.create(options);
  const bash = createBashTool(environment);
  const background = new BackgroundCommands(environment);
  return {
    tools: [bash, ...background.tools],
    bash,
    hooks: background.hooks,
    environment,
    stopAll: () => background.stopAll(),
  };
}
