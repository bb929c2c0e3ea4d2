// Settings of the rest of the kit: compaction, workspace instructions, subagents, memory and fetch. Their
// keys join the config schema (config.ts), with what each can do when a workspace config sets it.
import { z } from "zod";

export const kitSettingsShape = {
  /** Summarize older turns near the context window, and once after a context overflow (default on). */
  compaction: z.boolean().default(true),
  /** The model's context window in tokens, when the CLI's table does not know the model (the recipe's context-window.ts). */
  contextWindow: z.coerce.number().int().min(1_000).optional(),
  /** Read AGENTS.md (or CLAUDE.md, .github/copilot-instructions.md) into the system prompt (default on). */
  instructions: z.boolean().default(true),
  /** How deep subagents nest: 1 (the default) lets the main agent spawn and no subagent. */
  subagentDepth: z.coerce.number().int().min(1).max(4).default(1),
  /** Leave a run's background tasks running when it ends (default: they are stopped). */
  keepTasks: z.boolean().default(false),
  /** read_memory, write_memory, memory_search and the session tools (default on). */
  memory: z.boolean().default(true),
  /** Hosts the fetch tool may reach ("docs.python.org", "*.example.com"); no fetch tool unless set. */
  fetchHosts: z.array(z.string().min(1)).optional(),
};

export const KIT_SETTING_RISK = {
  compaction: "harmless",
  contextWindow: "harmless",
  // Instructions are text the model reads, as it could read the files itself; they set nothing.
  instructions: "harmless",
  subagentDepth: "harmless", // more model requests within --max-turns per run, nothing more reached
  keepTasks: "harmless",
  memory: "harmless",
  fetchHosts: "sensitive", // where the agent may send what it read
} as const;
