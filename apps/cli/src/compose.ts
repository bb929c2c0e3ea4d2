// The composition root: the only place that knows which packages make up the bridle agent. Each package
// is imported when first needed, so commands that do not need a provider or the shell never load them.
import { join, resolve } from "node:path";
import {
  type AnyHook,
  type AnyTool,
  type Approver,
  Harness,
  type Model,
  type SessionStore,
  type ToolSource,
  type Usage,
  Workspace,
} from "@bridle/core";
import { approveEverything, TerminalApprover, YesAtTerminal } from "./approvers.js";
import { CliError } from "./cli-error.js";
import { type CodingChoice, codingOverlay, DEFAULT_CODING } from "./coding.js";
import type { Settings } from "./config.js";
import { oneLine, visible } from "./display-text.js";
import { type Kit, prepareKit } from "./kit.js";
import { type McpInteraction, mcpInteraction } from "./mcp-interactive.js";
import type { McpPromptSource } from "./mcp-prompts.js";
import { shellRules, sourceForMode, toolsForMode } from "./permission-tools.js";
import { profileToolset, readOnlyNames, type ToolChoice, toolChoice } from "./profile.js";

export interface Toolset {
  readonly tools: readonly AnyTool[];
  /** Hooks the tools need on the run (skills enforce their allowed-tools with one). */
  readonly hooks: readonly AnyHook[];
  /** Added to the system prompt (the skills catalog). */
  readonly instructions: string;
  /** The tool vocabulary and edit format, and why (profile.ts). */
  readonly choice: ToolChoice;
  /** The MCP servers' prompts (the interactive session's `/mcp__…` commands), when --mcp is given. */
  readonly mcpPrompts?: McpPromptSource;
  /** The permission mode in force and what bounds the commands: said once at start. */
  readonly permissions: string;
  /** Tools that join once ready (MCP servers started in the background), read before each model request. */
  readonly toolSources: readonly ToolSource[];
  close(): Promise<void>;
}

export interface Agent {
  readonly harness: Harness;
  readonly mcpPrompts?: McpPromptSource | undefined;
  readonly kit: Kit;
  readonly store: SessionStore;
  readonly model: Model;
  /** The permission mode in force and what bounds the commands, as one line. */
  readonly permissions: string;
  cost(usage: Usage): number | undefined;
  /** The same tools and store with another model (the interactive /model command). */
  withModel(name: string): Promise<Agent>;
  close(): Promise<void>;
}

export const SYSTEM_PROMPT = `You are a coding agent working in the user's repository (the workspace). Read before you edit, keep changes minimal and in scope, run the relevant checks after editing, and end with a short account of what you changed and what the checks showed. Paths are relative to the workspace root. Never read secrets (.env files, keys, credentials).`;

/**
 * How MCP servers join: "wait" lists every server's tools before the agent starts (`bridle tools list`,
 * durable runs, whose tool set is fixed); "background" lets the first model request leave at once and adds
 * each server's tools from the request after it is ready (`bridle run`, the interactive session).
 */
export type McpStart = "wait" | "background";

export async function composeTools(
  settings: Settings,
  codingChoice: CodingChoice = DEFAULT_CODING,
  interaction?: McpInteraction,
  mcpStart: McpStart = "wait",
): Promise<Toolset> {
  const tools: AnyTool[] = [];
  const toolSources: ToolSource[] = [];
  const closers: (() => Promise<void>)[] = [];
  const { createFsTools } = await import("@bridle/tools-fs");
  // One read tracker for every file tool of the profile: a file read in a run may then be edited or patched.
  const fs = createFsTools();
  const shell = await shellTools(settings);
  closers.push(() => shell.stopAll());
  const choice = toolChoice(settings);
  // One records the permission mode on the run's event stream (a shell.permissions fact).
  const hooks: AnyHook[] = [...shell.hooks];
  let mcpPrompts: McpPromptSource | undefined;
  let instructions = "";
  // The coding overlay's run_check shares bash's environment: one runner, sandbox and command policy.
  // The overlay rescans the tree after any tool not known to only read: tell it the profile's readers.
  const readers = readOnlyNames(profileToolset(choice, fs, shell.bash));
  const coding = await codingOverlay(settings.cwd, shell.environment, codingChoice, readers);
  // The profile names the plan tool (update_plan, or TodoWrite for Claude): the overlay's is the one it wraps.
  const plan = coding?.tools.find((tool) => tool.name === "update_plan");
  tools.push(...profileToolset(choice, fs, shell.bash, plan));
  if (coding) {
    tools.push(...coding.tools.filter((tool) => tool !== plan));
    hooks.push(...coding.hooks);
  }
  if (settings.skills) {
    const { SkillRegistry, createSkillTools } = await import("@bridle/skills");
    const registry = await SkillRegistry.load({
      folders: [settings.skills],
      onWarning: (warning) => process.stderr.write(`skills: ${visible(warning.message)}\n`),
    });
    // skill_run goes through the same runner and command policy as bash, so --sandbox covers skills too.
    const skills = await createSkillTools(registry, { shell: shell.environment });
    tools.push(...skills.tools);
    hooks.push(...skills.hooks);
    instructions = registry.catalog();
  }
  if (settings.mcp && settings.mcpConfig !== undefined) {
    const { McpServers, loopbackAuthorization } = await import("@bridle/tools-mcp");
    // The text read when the settings were loaded (McpServers takes JSON text, not a path).
    const servers = new McpServers(settings.mcpConfig, {
      workspaceFolder: settings.cwd,
      // What the config holds that is not used (a key, a server needing a VS Code prompt) is said, not dropped.
      onWarning: (warning) => process.stderr.write(`bridle: warning: ${visible(warning.message)}\n`),
      // Elicitation and sampling go to the person at the terminal, or are refused and said (mcp-interactive.ts).
      ...mcpInteraction(interaction ?? { model: () => undefined, say: (text) => process.stderr.write(text) }),
      // A server that asks for OAuth, with a person at the terminal: the sign-in URL is printed and the
      // redirect received on a loopback port; sessions are kept per server (0600) in the user's config
      // folder. Without a terminal nobody could sign in, and the server fails to connect at once.
      ...(process.stdin.isTTY
        ? {
            oauth: loopbackAuthorization({
              open: (server, url) =>
                void process.stderr.write(
                  `bridle: sign in to MCP server "${oneLine(server, 60)}": ${oneLine(url.href, 2_000)}\n`,
                ),
            }),
          }
        : {}),
    });
    closers.push(() => servers.close());
    mcpPrompts = servers;
    if (mcpStart === "background") {
      // A server that fails says so once, as a fact on the run's stream (run-view.ts prints it).
      toolSources.push(sourceForMode(servers.background(), settings.permissionMode));
    } else {
      try {
        tools.push(...(await servers.tools()));
      } catch (error) {
        await servers.close();
        throw new CliError(`MCP servers from ${settings.mcp}: ${(error as Error).message}`);
      }
    }
  }
  return {
    tools: toolsForMode(tools, settings.permissionMode),
    ...(mcpPrompts ? { mcpPrompts } : {}),
    permissions: shell.environment.describeMode(),
    toolSources,
    hooks,
    choice,
    instructions: [coding?.instructions, instructions].filter(Boolean).join("\n\n"),
    close: async () => {
      for (const close of closers) await close();
    },
  };
}

const warnLine = (line: string) => void process.stderr.write(`${line}\n`);

let sandboxWarned = false;

async function shellTools(settings: Settings) {
  const { createShellTools, selectRunner } = await import("@bridle/tools-shell");
  const mode = settings.permissionMode;
  if (mode === "full-access" && settings.sandbox === "bwrap")
    throw new CliError(
      "--permission-mode full-access runs commands without a sandbox; it cannot be combined with --sandbox bwrap",
      2,
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
      process.stderr.write(`bridle: warning: ${warning}\n`);
    }
    return await createShellTools({
      runner,
      permissionMode: mode,
      policy: { rules: shellRules(settings.permissions) },
    });
  } catch (error) {
    throw new CliError(
      `cannot set up the shell (--sandbox ${settings.sandbox}, --permission-mode ${mode}): ${(error as Error).message}`,
    );
  }
}

export type CostedModel = Model & { cost?(usage: Usage): number | undefined };

export async function createModel(settings: Settings): Promise<CostedModel> {
  try {
    switch (settings.provider) {
      case "openai": {
        const { createOpenAIResponsesModel } = await import("@bridle/providers-openai");
        return createOpenAIResponsesModel({
          model: settings.model,
          ...(settings.models ? { models: settings.models } : {}),
          ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
          ...(settings.idleTimeout ? { idleTimeoutMs: settings.idleTimeout * 1000 } : {}),
        });
      }
      case "openai-chat": {
        const { createOpenAIChatModel } = await import("@bridle/providers-openai");
        return createOpenAIChatModel({
          model: settings.model,
          ...(settings.models ? { models: settings.models } : {}),
          ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
          ...(settings.idleTimeout ? { idleTimeoutMs: settings.idleTimeout * 1000 } : {}),
        });
      }
      case "anthropic": {
        const { createAnthropicModel } = await import("@bridle/providers-anthropic");
        return createAnthropicModel({
          model: settings.model,
          ...(settings.models ? { models: settings.models } : {}),
          ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
          ...(settings.idleTimeout ? { idleTimeoutMs: settings.idleTimeout * 1000 } : {}),
        });
      }
    }
  } catch (error) {
    throw new CliError(`cannot set up the ${settings.provider} provider: ${(error as Error).message}`);
  }
}

export async function openStore(settings: Settings): Promise<SessionStore> {
  if (settings.store === "postgres") {
    if (!settings.databaseUrl) {
      throw new CliError("--store postgres needs --database-url URL (or BRIDLE_DATABASE_URL)", 2);
    }
    const { PostgresSessionStore } = await import("@bridle/store-postgres");
    try {
      return await PostgresSessionStore.open({ connectionString: settings.databaseUrl, max: 4 });
    } catch (error) {
      throw new CliError(`cannot open the Postgres session store: ${(error as Error).message}`);
    }
  }
  if (settings.store === "sqlite") {
    const { SqliteSessionStore } = await import("@bridle/store-sqlite");
    return SqliteSessionStore.open({ path: join(settings.storeDir, "sessions.sqlite") });
  }
  const { JsonlSessionStore } = await import("@bridle/store-jsonl");
  return JsonlSessionStore.open({ dir: join(settings.storeDir, "jsonl"), durability: "batch" });
}

export async function composeAgent(
  settings: Settings,
  approver: Approver,
  coding: CodingChoice = DEFAULT_CODING,
): Promise<Agent> {
  // MCP servers' sampling requests go to the model the session uses now (/model changes it).
  let current: Model | undefined;
  const interaction: McpInteraction = {
    ...(approver instanceof TerminalApprover
      ? { ask: (text: string, signal: AbortSignal) => approver.question(text, signal) }
      : {}),
    approveSampling: approver === approveEverything || approver instanceof YesAtTerminal,
    model: () => current,
    say: (text) => process.stderr.write(text),
  };
  const [model, toolset, opened, kit] = await Promise.all([
    createModel(settings),
    composeTools(settings, coding, interaction, settings.mcpStartup),
    openStore(settings),
    prepareKit(settings, (name) => createModel({ ...settings, model: name }), warnLine),
  ]);
  current = model;
  const store = kit.tagStore(opened);
  const build = (chosen: CostedModel): Agent => ({
    // The kit (kit.ts) adds compaction, instructions, subagents, memory, fetch and the spill folder.
    harness: new Harness(
      kit.extend(
        {
          model: chosen,
          tools: toolset.tools,
          toolSources: toolset.toolSources,
          system: toolset.instructions ? `${SYSTEM_PROMPT}\n\n${toolset.instructions}` : SYSTEM_PROMPT,
          hooks: toolset.hooks,
          workspace: new Workspace(settings.cwd),
          approver,
          // --max-turns bounds model requests; tool calls get room for several per turn.
          limits: { maxModelRequests: settings.maxTurns, maxToolCalls: settings.maxTurns * 10 },
        },
        store,
      ),
    ),
    kit,
    store,
    permissions: toolset.permissions,
    mcpPrompts: toolset.mcpPrompts,
    model: chosen,
    cost: (usage) => chosen.cost?.(usage),
    withModel: async (name) => {
      const next = await createModel({ ...settings, model: name });
      current = next;
      return build(next);
    },
    close: async () => {
      await kit.close();
      await toolset.close();
      await store.close();
    },
  });
  return build(model);
}
