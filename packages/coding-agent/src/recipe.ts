// The one recipe for the coding agent: every front door (bridle run, the interactive session, durable
// workers, `bridle tools list`, the ACP agent, apps/eval) calls createCodingAgent, so for the same settings
// each sends the model the same system prompt and the same tools. Front doors differ only in what the
// mode says: who answers approvals, whether MCP servers are waited for, and whether a model or store is real.
import {
  type AnyHook,
  type AnyTool,
  type Approver,
  type EventObserver,
  Harness,
  type HarnessOptions,
  type Model,
  type ModelEvent,
  type SessionStore,
  type Usage,
} from "@bridle/core";
import type { CostedModel, ProviderDescriptor } from "@bridle/provider-kit";
import { createAskUserTool } from "./ask-user-tool.js";
import { CodingAgentError } from "./errors.js";
import { createExitPlanTool, exitPlanToolName } from "./exit-plan-tool.js";
import { hookScripts } from "./hook-scripts.js";
import { type Kit, prepareKit } from "./kit.js";
import { gateSource, gateTool, modeHook } from "./mode-tools.js";
import { type ToolChoice, toolChoice } from "./profile.js";
import { createModel } from "./providers.js";
import { ModeSwitch, type SessionMode } from "./session-mode.js";
import type { CodingAgentSettings } from "./settings.js";
import { openStore } from "./stores.js";
import { SYSTEM_PROMPT } from "./system-prompt.js";
import { composeTools, type McpClientOptions, type McpPromptSource } from "./tools.js";
import type { UserQuestions } from "./user-questions.js";

/**
 * - "run", "interactive": a person's run; MCP servers join as `settings.mcpStartup` says.
 * - "durable": a durable worker's run; the tool set is fixed before the run starts (MCP servers waited for),
 *   and the durable engine answers approvals and supplies the store.
 * - "list": the agent as it would run, to show its tools; no model is asked and no store opened.
 */
export type CodingAgentMode = "run" | "interactive" | "durable" | "list";

export interface CodingAgentOptions {
  readonly mode: CodingAgentMode;
  /** Who answers approvals (the durable engine answers its own: leave it out there). */
  readonly approver?: Approver;
  /** Descriptors beyond the built-in providers (an embedder's own, a user's plugin). */
  readonly providers?: readonly ProviderDescriptor[];
  /** The model to run instead of the settings' provider (a scripted model in tests and evals). */
  readonly model?: CostedModel;
  /** The store runs record into, instead of the one the settings name (a durable engine's, an eval's). */
  readonly store?: SessionStore;
  /** Lines for the person: the sandbox's warning, instructions read, config warnings. Default: stderr. */
  readonly warn?: (line: string) => void;
  /** Elicitation, sampling and OAuth for MCP servers; `model` is the model the session uses now. */
  readonly mcpClient?: (model: () => Model | undefined) => McpClientOptions;
  readonly env?: NodeJS.ProcessEnv;
  /** The mode the session starts in (default: the settings' permission mode); "plan" for --plan. */
  readonly startMode?: SessionMode;
  /**
   * The front door can switch modes mid-session (the terminal's mode key, ACP's set_mode): the plan tool is
   * offered even when the session does not start in plan mode.
   */
  readonly switchModes?: boolean;
  /** Who answers the ask-the-user tool and the plan's acceptance; without it those are refused, said why. */
  readonly questions?: UserQuestions;
  /** The front door's own hooks, run before the recipe's (a CLI holds tool calls until its checkpoint is taken). */
  readonly hooks?: readonly AnyHook[];
}

export interface CodingAgent {
  readonly harness: Harness;
  /** What the harness was built from: a durable engine builds its own harness from these. */
  readonly options: HarnessOptions & { readonly model: CostedModel; readonly system: string };
  readonly model: CostedModel;
  /** The store as runs record into it (sessions tagged with the workspace). */
  readonly store: SessionStore;
  readonly kit: Kit;
  /** The profile and edit format, and why. */
  readonly choice: ToolChoice;
  /** The permission mode in force and what bounds the commands, as one line. */
  readonly permissions: string;
  readonly mcpPrompts?: McpPromptSource | undefined;
  /** Observers each run should be given (hook scripts' Notification and PostCompact): pass to `stream`. */
  readonly observers: readonly EventObserver[];
  /** Why commands run unsandboxed although a sandbox was asked for (said once per process through `warn`). */
  readonly sandboxWarning: string | undefined;
  /** The session's mode (plan or a permission mode), switched in place; shared by `withModel`'s agents. */
  readonly modes: ModeSwitch;
  cost(usage: Usage): number | undefined;
  /** The same tools and store with another model of the same provider (an interactive /model). */
  withModel(name: string): Promise<CodingAgent>;
  close(): Promise<void>;
}

export async function createCodingAgent(
  settings: CodingAgentSettings,
  options: CodingAgentOptions,
): Promise<CodingAgent> {
  const warn = options.warn ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const env = options.env ?? process.env;
  const listing = options.mode === "list";
  const makeModel = async (name: string): Promise<CostedModel> =>
    listing
      ? listingModel(settings.provider, name)
      : createModel({ ...settings, model: name }, options.providers, env);
  // MCP servers' sampling requests go to the model the session uses now (withModel changes it).
  let current: Model | undefined;
  const mcpClient = options.mcpClient?.(() => current);
  // The deferred tools' search tool, named in the profile's vocabulary (Claude's tools are PascalCase).
  const profile = toolChoice(settings).profile.value;
  const searchName = profile === "anthropic" ? "ToolSearch" : "tool_search";
  const modes = new ModeSwitch(settings.permissionMode, options.startMode);
  const exitName = exitPlanToolName(profile);
  // The plan tool is offered where the session can plan; the ask tool everywhere (it waits behind the search
  // tool, and where nobody can answer it says so).
  const modeTools = [
    ...(options.switchModes || modes.mode === "plan"
      ? [createExitPlanTool(profile, modes, options.questions)]
      : []),
    createAskUserTool(profile, options.questions),
  ];
  const askName = modeTools[modeTools.length - 1]?.name ?? "";
  // Built side by side; if one part fails, the parts that were built are closed before the error is thrown.
  const parts = await Promise.allSettled([
    options.model ?? makeModel(settings.model),
    composeTools(settings, {
      mcpStart: options.mode === "run" || options.mode === "interactive" ? settings.mcpStartup : "wait",
      mcpClient,
      warn,
      modes,
    }),
    options.store ?? (listing ? unopenedStore : openStore(settings)),
    prepareKit(settings, makeModel, warn, searchName),
    hookScripts(settings, warn, env),
  ]);
  const [modelPart, toolsetPart, storePart, kitPart, scriptsPart] = parts;
  if (
    modelPart.status === "rejected" ||
    toolsetPart.status === "rejected" ||
    storePart.status === "rejected" ||
    kitPart.status === "rejected" ||
    scriptsPart.status === "rejected"
  ) {
    if (kitPart.status === "fulfilled") await kitPart.value.close().catch(() => {});
    if (toolsetPart.status === "fulfilled") await toolsetPart.value.close().catch(() => {});
    if (storePart.status === "fulfilled" && !options.store) await storePart.value.close().catch(() => {});
    const failed = parts.find((part) => part.status === "rejected") as PromiseRejectedResult;
    throw failed.reason;
  }
  const model = modelPart.value;
  const toolset = toolsetPart.value;
  const opened = storePart.value;
  const kit = kitPart.value;
  const scripts = scriptsPart.value;
  const closeAll = async () => {
    if (scripts) {
      await scripts.sessionEnd("other");
      await scripts.observer.idle();
    }
    await kit.close();
    await toolset.close();
    if (!options.store) await opened.close();
  };
  current = model;
  const store = kit.tagStore(opened);
  // Every tool under the session's mode (mode-tools.ts): gated before the kit sees them, so subagents get
  // them gated too, and once more after, for the kit's own tools and the MCP servers'.
  const gate = (tool: AnyTool) => gateTool(tool, modes, exitName);
  const build = (chosen: CostedModel): CodingAgent => {
    const extended = kit.extend(
      {
        model: chosen,
        tools: [...toolset.tools, ...modeTools].map(gate),
        toolSources: toolset.toolSources,
        system: toolset.instructions ? `${SYSTEM_PROMPT}\n\n${toolset.instructions}` : SYSTEM_PROMPT,
        // The front door's first (a wait: it judges nothing), then hook scripts: a PreToolUse that denies
        // stops a call before any other hook sees it.
        hooks: [
          ...(options.hooks ?? []),
          ...(scripts?.hooks ?? []),
          ...toolset.hooks,
          modeHook(modes, exitName, askName),
        ],
        ...(options.approver ? { approver: options.approver } : {}),
        // maxTurns bounds model requests; tool calls get room for several per turn.
        limits: {
          maxModelRequests: settings.maxTurns,
          maxToolCalls: settings.maxToolCalls ?? settings.maxTurns * 10,
        },
      },
      store,
    );
    const harnessOptions: HarnessOptions = {
      ...extended,
      tools: (extended.tools ?? []).map(gate),
      ...(extended.deferredTools ? { deferredTools: extended.deferredTools.map(gate) } : {}),
      ...(extended.toolSources
        ? { toolSources: extended.toolSources.map((source) => gateSource(source, modes, exitName)) }
        : {}),
    };
    const built = { ...harnessOptions, model: chosen, system: harnessOptions.system ?? "" };
    return {
      harness: new Harness(built),
      options: built,
      model: chosen,
      store,
      kit,
      choice: toolset.choice,
      permissions: toolset.permissions,
      mcpPrompts: toolset.mcpPrompts,
      sandboxWarning: toolset.sandboxWarning,
      modes,
      observers: scripts ? [scripts.observer] : [],
      cost: (usage) => chosen.cost?.(usage),
      withModel: async (name) => {
        const next = await makeModel(name);
        current = next;
        return build(next);
      },
      close: closeAll,
    };
  };
  return build(model);
}

/**
 * The run's model as far as listing needs it: a name for the tools that mention it. Listing runs nothing,
 * so it never asks it; if something did, the answer is an error that says why rather than a request.
 */
function listingModel(provider: string, model: string): CostedModel {
  return {
    provider,
    model,
    async *stream(): AsyncIterable<ModelEvent> {
      yield {
        type: "error",
        error: { code: "invalid_request", message: "listing the tools asks no model", retryable: false },
      };
    },
  };
}

// The session tools hold the store until a run calls them; listing calls none, so no store is opened (a
// Postgres store would need its server, a SQLite one its folder).
const unopened = (): never => {
  throw new CodingAgentError("invalid_settings", "listing the tools opens no session store");
};
const unopenedStore: SessionStore = {
  createSession: async () => unopened(),
  append: async () => unopened(),
  read: () => unopened(),
  get: async () => unopened(),
  list: async () => unopened(),
  fork: async () => unopened(),
  search: async () => unopened(),
  close: async () => {},
};
