// The rest of the kit around the core tools (tools.ts): compaction sized to the model's context window,
// workspace instructions, subagents and background tasks, memory and session tools, fetch, and a spill
// folder the run can read back. Prepared once per agent; `extend` adds it to a harness's options.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Agents } from "@bridle/agents";
import type { AnyTool, HarnessOptions, Model, SessionStore } from "@bridle/core";
import { instructionsName, Workspace } from "@bridle/core";
import { contextWindowOf } from "./context-window.js";
import { NO_INSTRUCTIONS, readInstructions, type WorkspaceInstructions } from "./instructions.js";
import { toolsForMode } from "./permission-tools.js";
import type { CodingAgentSettings } from "./settings.js";
import { agentDefinitions, type ChildListener, createAgents, modelNames } from "./subagents.js";
import { userDataDir, workspaceDataDir, workspaceKey } from "./workspace-data.js";
import { TaggingStore, WorkspaceSessions } from "./workspace-sessions.js";

/**
 * Offered once the model finds them with the search tool, so the first request stays within 6 KB (a
 * test in apps/eval guards it). A first turn reads, searches, edits, runs commands and checks: those stay.
 * Listing and finding files by name is bash's too (ls, find and rg --files run without approval), so
 * list_dir and glob wait. Deferred are the tools a run needs later or rarely: the plan (update_plan, Claude's TodoWrite), the
 * review and handoff (git_status, git_diff, detect_checks, handoff_notes, git_commit), memory, subagents
 * and their tasks, session search, fetch, Claude's MultiEdit (Edit does the same one edit at a time), and
 * the ask-the-user tool (request_user_input, Claude's AskUserQuestion: a run rarely needs to ask).
 */
const DEFERRED = new Set([
  "list_dir",
  "glob",
  "Glob",
  "update_plan",
  "TodoWrite",
  "MultiEdit",
  "git_status",
  "git_diff",
  "detect_checks",
  "handoff_notes",
  "git_commit",
  "read_memory",
  "write_memory",
  "memory_search",
  "fetch",
  "agent_spawn",
  "agent_send",
  "agent_list",
  "task_output",
  "task_cancel",
  "task_list",
  "session_list",
  "session_history",
  "session_search",
  "request_user_input",
  "AskUserQuestion",
]);

/** What `extend` needs of the harness the core tools make. */
export type KitBase = HarnessOptions & { readonly model: Model; readonly system: string };

export interface Kit {
  readonly instructions: WorkspaceInstructions;
  /** Spilled tool output of this workspace: outside the repository, readable by its runs. */
  readonly spillDir: string;
  readonly memoryDir: string | undefined;
  /** The system prompt of the last harness extended (instructions included), for token estimates. */
  readonly system: string | undefined;
  /** The store as runs record into it (sessions tagged with the workspace). */
  tagStore(store: SessionStore): SessionStore;
  /** The harness options with the kit added. */
  extend(base: KitBase, store: SessionStore): HarnessOptions;
  /** Child events of every subagent run (`carried`: also in the parent's stream). */
  listen(listener: ChildListener | undefined): void;
  /** Waits until every task left running has ended (bridle run with keepTasks). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function prepareKit(
  settings: CodingAgentSettings,
  makeModel: (name: string) => Promise<Model>,
  warn: (line: string) => void,
  /** The search tool's name in the profile's vocabulary ("ToolSearch" for Claude's). */
  searchName = "tool_search",
): Promise<Kit> {
  const dataDir = await workspaceDataDir(settings.dataDir ?? userDataDir(), settings.cwd);
  const spillDir = join(dataDir, "tool-output");
  const memoryDir = settings.memory ? join(dataDir, "memory") : undefined;
  await mkdir(spillDir, { recursive: true });
  const key = await workspaceKey(settings.cwd);
  const instructions = settings.instructions ? await readInstructions(settings.cwd, warn) : NO_INSTRUCTIONS;
  if (instructions.files.length > 0) {
    // Said once at start, trusted workspace or not: the user sees what the model is told to follow.
    const names = instructions.files.map((file) => instructionsName(file, settings.cwd));
    warn(`bridle: instructions from ${names.join(", ")}`);
  }
  const definitions = agentDefinitions(settings.agentFiles);
  const models: Record<string, Model> = {};
  for (const name of modelNames(definitions)) models[name] = await makeModel(name);
  const extraTools: AnyTool[] = [];
  if (memoryDir) {
    const { FolderMemory, memoryTools } = await import("@bridle/tools-session");
    extraTools.push(...memoryTools(new FolderMemory(memoryDir)));
  }
  if (settings.fetchHosts && settings.fetchHosts.length > 0) {
    const { createFetchTool } = await import("@bridle/tools-fetch");
    extraTools.push(createFetchTool({ allowedHosts: settings.fetchHosts }));
  }
  const { sessionTools } = await import("@bridle/tools-session");
  const agents: Agents[] = [];
  let listener: ChildListener | undefined;
  let system: string | undefined;
  return {
    get system() {
      return system;
    },
    instructions,
    spillDir,
    memoryDir,
    tagStore: (store) => new TaggingStore(store, key),
    extend(base, store) {
      const window = contextWindowOf(base.model, settings.contextWindow);
      // The spill folder is a second root: read_file reaches it, and the sandbox binds it like the workspace.
      const workspace = new Workspace({ roots: [settings.cwd, spillDir] });
      const context: HarnessOptions["context"] = {
        contextWindow: window.tokens,
        compaction: settings.compaction,
        spill: { dir: spillDir },
      };
      const tools = [
        ...(base.tools ?? []),
        ...toolsForMode(
          [...extraTools, ...(settings.memory ? sessionTools(new WorkspaceSessions(store, key)) : [])],
          settings.permissionMode,
        ),
      ];
      const hooks = base.hooks ?? [];
      const subagents = createAgents({
        definitions,
        parent: {
          model: base.model,
          tools,
          hooks,
          context,
          ...(base.limits ? { limits: base.limits } : {}),
          ...(base.approver ? { approver: base.approver } : {}),
        },
        models,
        depth: settings.subagentDepth,
        keepTasks: settings.keepTasks,
        onEvent: (event, carried) => listener?.(event, carried),
      });
      agents.push(subagents);
      system = instructions.apply(base.system);
      // Tools a model rarely needs wait behind the search tool: they cost no request bytes until found.
      const all = [...tools, ...subagents.tools];
      const deferred = all.filter((tool) => DEFERRED.has(tool.name));
      return {
        ...base,
        tools: all.filter((tool) => !DEFERRED.has(tool.name)),
        ...(deferred.length > 0 ? { deferredTools: deferred, toolSearchName: searchName } : {}),
        hooks: [...hooks, ...subagents.hooks],
        system,
        workspace,
        context,
      };
    },
    listen(next) {
      listener = next;
    },
    async settle() {
      await Promise.all(agents.flatMap((a) => a.tasks("running").map((task) => task.done)));
    },
    async close() {
      await Promise.all(agents.map((a) => a.close()));
    },
  };
}
