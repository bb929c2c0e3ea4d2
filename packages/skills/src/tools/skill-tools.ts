import type { AnyHook, AnyTool } from "@bridle/core";
import {
  ShellEnvironment as Shell,
  type ShellEnvironment,
  type ShellToolsOptions,
} from "@bridle/tools-shell";
import { type ActivationOptions, SkillActivations } from "../activation.js";
import type { SkillRegistry } from "../registry.js";
import { createSkillReadTool, type SkillReadOptions } from "./skill-read.js";
import { createSkillRunTool, type SkillRunOptions } from "./skill-run.js";

export interface SkillToolsOptions extends SkillReadOptions, SkillRunOptions, ActivationOptions {
  /**
   * Where skill scripts run and which command policy judges them: the app's ShellEnvironment (share
   * the bash tool's, e.g. one with the bubblewrap runner) or options to make one (default: a local runner
   * and the default policy).
   */
  readonly shell?: ShellEnvironment | ShellToolsOptions;
  /** Leave skill_run out (skills as instructions and references only). */
  readonly scripts?: boolean;
}

export interface SkillTools {
  /** skill_read, and skill_run unless `scripts: false`. */
  readonly tools: readonly AnyTool[];
  /** The allowed-tools hooks: pass them to the Harness. */
  readonly hooks: readonly AnyHook[];
  /** Which skills each run is using. */
  readonly activations: SkillActivations;
}

/** The skill tools over a registry, and the hooks that enforce the skills' allowed-tools. */
export async function createSkillTools(
  registry: SkillRegistry,
  options: SkillToolsOptions = {},
): Promise<SkillTools> {
  const activations = new SkillActivations(options);
  const tools: AnyTool[] = [createSkillReadTool(registry, activations, options)];
  if (options.scripts !== false) {
    const env = options.shell instanceof Shell ? options.shell : await Shell.create(options.shell ?? {});
    tools.push(createSkillRunTool(registry, activations, env, options));
  }
  return { tools, hooks: activations.hooks(), activations };
}
