// The core tools of the coding agent: the profile's file and edit tools over one read tracker, bash with its
// runner, sandbox, permission mode and command policy, the coding overlay sharing bash's environment,
// skills, and MCP servers. Each package is imported when first needed.
import { resolve } from "node:path";
import type { CommandWatch } from "@bridle/coding";
import type { AnyHook, AnyTool, ToolSource } from "@bridle/core";
import type { McpServers, McpServersOptions } from "@bridle/tools-mcp";

/** The MCP servers' prompts (a front door offers them as commands). */
export type McpPromptSource = Pick<McpServers, "listPrompts" | "getPrompt">;

import { withCommandDiffs } from "./command-diffs.js";
import { CodingAgentError } from "./errors.js";
import { markFollowsMode, modeBash } from "./mode-tools.js";
import { shellRules, sourceForMode, toolsForMode } from "./permission-tools.js";
import { profileToolset, readOnlyNames, type ToolChoice, toolChoice } from "./profile.js";
import type { ModeSwitch } from "./session-mode.js";
import { type CodingAgentSettings, DEFAULT_CODING } from "./settings.js";
import { userDataDir, workspaceDataDir } from "./workspace-data.js";

/** What MCP servers may ask of a person, and how a server asking for OAuth is signed in to. */
export type McpClientOptions = Pick<McpServersOptions, "onElicitation" | "onSampling" | "oauth">;

export interface Toolset {
  readonly tools: readonly AnyTool[];
  /** Hooks the tools need on the run (the overlay's baseline and checks, skills' allowed-tools). */
  readonly hooks: readonly AnyHook[];
  /** Added to the system prompt (the overlay's instructions, the skills catalog). */
  readonly instructions: string;
  /** The tool vocabulary and edit format, and why. */
  readonly choice: ToolChoice;
  /** The MCP servers' prompts, when MCP servers are configured. */
  readonly mcpPrompts?: McpPromptSource;
  /** The permission mode in force and what bounds the commands, as one line. */
  readonly permissions: string;
  /** Tools that join once ready (MCP servers started in the background). */
  readonly toolSources: readonly ToolSource[];
  /** Why commands run unsandboxed although a sandbox was asked for ("auto" without bubblewrap). */
  readonly sandboxWarning: string | undefined;
  close(): Promise<void>;
}

export interface ToolsetOptions {
  /** "wait": every MCP server's tools are listed before the agent starts; "background": they join later. */
  readonly mcpStart: "wait" | "background";
  readonly mcpClient?: McpClientOptions | undefined;
  readonly warn: (line: string) => void;
  /** The session's mode switch: bash then runs each command under the mode in force. */
  readonly modes?: ModeSwitch | undefined;
}

export async function composeTools(settings: CodingAgentSettings, options: ToolsetOptions): Promise<Toolset> {
  const tools: AnyTool[] = [];
  const toolSources: ToolSource[] = [];
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const { createFsTools } = await import("@bridle/tools-fs");
    // One read tracker for every file tool of the profile: a file read in a run may then be edited or patched.
    const fs = createFsTools();
    const shell = await shellTools(settings, options.warn, options.modes);
    closers.push(() => shell.stopAll());
    // The files each command changed, drawn as edits are (command-diffs.ts): one watch for every tool
    // that runs a command.
    let watching: Promise<CommandWatch> | undefined;
    const watch = () => {
      watching ??= (async () => {
        const { CommandWatch } = await import("@bridle/coding");
        const dataDir = await workspaceDataDir(settings.dataDir ?? userDataDir(), settings.cwd);
        return CommandWatch.open({ dataDir, root: settings.cwd });
      })();
      return watching;
    };
    const withDiffs = (tool: AnyTool) =>
      COMMAND_TOOLS.has(tool.name) ? withCommandDiffs(tool, watch) : tool;
    const bash = withCommandDiffs(shell.bash, watch);
    const choice = toolChoice(settings);
    const hooks: AnyHook[] = [...shell.hooks];
    let mcpPrompts: McpPromptSource | undefined;
    let catalog = "";
    // The overlay rescans the tree after any tool not known to only read: tell it the profile's readers.
    const readers = readOnlyNames(profileToolset(choice, fs, bash));
    const codingChoice = settings.coding ?? DEFAULT_CODING;
    const coding = codingChoice.enabled
      ? await (await import("@bridle/coding")).createCodingOverlay({
          workspace: settings.cwd,
          shell: shell.environment,
          repairAttempts: codingChoice.repairAttempts,
          readOnlyTools: readers,
        })
      : undefined;
    // The profile names the plan tool (update_plan, or TodoWrite for Claude): the overlay's is the one it wraps.
    const plan = coding?.tools.find((tool) => tool.name === "update_plan");
    const profiled = profileToolset(choice, fs, bash, plan);
    // The shell tool under its profile name is the profile's one tool that judges its calls itself: with a
    // mode switch, it is the mode bash and follows the mode on its own.
    if (options.modes) for (const tool of profiled) if (tool.needsApproval) markFollowsMode(tool);
    tools.push(...profiled);
    if (coding) {
      tools.push(...coding.tools.filter((tool) => tool !== plan).map(withDiffs));
      hooks.push(...coding.hooks);
    }
    if (settings.skills) {
      const { SkillRegistry, createSkillTools } = await import("@bridle/skills");
      const registry = await SkillRegistry.load({
        folders: [settings.skills],
        onWarning: (warning) => options.warn(`skills: ${warning.message}`),
      });
      // skill_run goes through the same runner and command policy as bash, so the sandbox covers skills too.
      const skills = await createSkillTools(registry, { shell: shell.environment });
      tools.push(...skills.tools.map(withDiffs));
      hooks.push(...skills.hooks);
      catalog = registry.catalog();
    }
    if (settings.mcpConfig !== undefined) {
      const { McpServers } = await import("@bridle/tools-mcp");
      const servers = new McpServers(settings.mcpConfig, {
        workspaceFolder: settings.cwd,
        // What the config holds that is not used (a key, a server needing a VS Code prompt) is said, not dropped.
        onWarning: (warning) => options.warn(`bridle: warning: ${warning.message}`),
        ...options.mcpClient,
      });
      closers.push(() => servers.close());
      mcpPrompts = servers;
      if (options.mcpStart === "background") {
        // A server that fails says so once, as a fact on the run's stream.
        toolSources.push(sourceForMode(servers.background(), settings.permissionMode));
      } else {
        try {
          tools.push(...(await servers.tools()));
        } catch (error) {
          throw new CodingAgentError(
            "setup_failed",
            `MCP servers from ${settings.mcp ?? "the MCP config"}: ${(error as Error).message}`,
            { cause: error },
          );
        }
      }
    }
    return {
      tools: toolsForMode(tools, settings.permissionMode),
      ...(mcpPrompts ? { mcpPrompts } : {}),
      permissions: shell.environment.describeMode(),
      sandboxWarning: shell.sandboxWarning,
      toolSources,
      hooks,
      choice,
      instructions: [coding?.instructions, catalog].filter(Boolean).join("\n\n"),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The tools besides bash that run a command through bash's environment: their results show its diffs too. */
const COMMAND_TOOLS: ReadonlySet<string> = new Set(["run_check", "skill_run"]);

// The sandbox's warning (no bubblewrap under "auto") is said once per process, not once per agent.
let sandboxWarned = false;

async function shellTools(
  settings: CodingAgentSettings,
  warn: (line: string) => void,
  modes: ModeSwitch | undefined,
) {
  const { createShellTools, selectRunner } = await import("@bridle/tools-shell");
  const mode = settings.permissionMode;
  if (mode === "full-access" && settings.sandbox === "bwrap")
    throw new CodingAgentError(
      "invalid_settings",
      "--permission-mode full-access runs commands without a sandbox; it cannot be combined with --sandbox bwrap",
    );
  try {
    // The files that configure this agent stay read-only inside the sandbox, and a skills folder kept
    // outside the workspace stays visible (read-only) so its scripts can run.
    const mcpFile = settings.mcp?.trimStart().startsWith("{") ? undefined : settings.mcp;
    const configured = [mcpFile, settings.skills].flatMap((path) =>
      path ? [resolve(settings.cwd, path)] : [],
    );
    // Full access is named for what it is: no sandbox.
    const { runner, warning } = await selectRunner(mode === "full-access" ? "off" : settings.sandbox, {
      protect: configured,
      readable: settings.skills ? [resolve(settings.cwd, settings.skills)] : [],
    });
    if (warning && !sandboxWarned) {
      sandboxWarned = true;
      warn(`bridle: warning: ${warning}`);
    }
    const policy = { rules: shellRules(settings.permissions) };
    const tools = await createShellTools({ runner, permissionMode: mode, policy });
    // Another mode's commands run through a bash of that mode on the same runner (session-mode.ts).
    const bash = modes
      ? modeBash(
          tools.bash,
          modes,
          async (other) => (await createShellTools({ runner, permissionMode: other, policy })).bash,
        )
      : tools.bash;
    return Object.assign(tools, { bash, sandboxWarning: warning });
  } catch (error) {
    throw new CodingAgentError(
      "setup_failed",
      `cannot set up the shell (--sandbox ${settings.sandbox}, --permission-mode ${mode}): ${(error as Error).message}`,
      { cause: error },
    );
  }
}
