import { type AnyHook, type AnyTool, defineHook } from "@bridle/core";
import { BackgroundCommands } from "./background.js";
import { createBashTool } from "./bash.js";
import { ShellEnvironment, type ShellToolsOptions } from "./environment.js";
import type { PermissionMode } from "./permission-mode.js";

export interface ShellTools {
  /** bash, bash_start, bash_output, bash_stop, bash_list. */
  readonly tools: AnyTool[];
  readonly bash: AnyTool;
  /**
   * Pass them to the Harness: one records the permission mode in force on the run's event stream (a
   * `shell.permissions` fact), one stops a run's background commands when it ends.
   */
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
    hooks: [...background.hooks, permissionFact(environment)],
    environment,
    stopAll: () => background.stopAll(),
  };
}

/** What a `shell.permissions` fact holds: the mode in force and what bounds the commands. */
export interface ShellPermissionsFact {
  readonly mode: PermissionMode;
  /** The bubblewrap sandbox is the runner (the boundary in "workspace"). */
  readonly sandboxed: boolean;
  readonly runner: string;
  /** The line a front door says at start. */
  readonly summary: string;
}

function permissionFact(environment: ShellEnvironment): AnyHook {
  const fact: ShellPermissionsFact = {
    mode: environment.permissionMode,
    sandboxed: environment.sandboxed,
    runner: environment.runner.name,
    summary: environment.describeMode(),
  };
  return defineHook({
    event: "run_start",
    name: "shell: permissions",
    handler: (input) => {
      // A run resumed after an approval pause recorded it when it started.
      if (!input.resumed) input.record?.("shell.permissions", fact);
    },
  });
}
