// Subagents: which definitions the model can spawn, and the Agents that runs them for one
// harness. Definitions come from the user's config folder (agents/*.md) and, once trusted, the workspace's
// .bridle/agents/*.md (agent-files.ts); a built-in "helper" is there when neither names one so.
import { Agents, type ParentOptions, parseAgentMarkdown, type SubagentDefinition } from "@bridle/agents";
import { errorMessage, type Model, type RunEvent } from "@bridle/core";
import { CodingAgentError } from "./errors.js";
import type { AgentFile } from "./settings.js";

const HELPER: SubagentDefinition = {
  name: "helper",
  description:
    "A general-purpose helper with your tools and a fresh context: give it a self-contained task (a search through the code, a review, a focused change) and it reports back.",
  system:
    "You are a helper agent working for another agent in the user's repository. Do the task you are given with the tools you have, then report what you found or did: briefly, with paths, names and numbers.",
};

/** The definitions in order of precedence: a workspace's overrides the user's, which overrides the built-in. */
export function agentDefinitions(files: readonly AgentFile[]): SubagentDefinition[] {
  const byName = new Map<string, SubagentDefinition>([[HELPER.name, HELPER]]);
  for (const source of ["user", "workspace"] as const) {
    for (const file of files.filter((f) => f.source === source)) {
      try {
        const definition = parseAgentMarkdown(file.text, file.path);
        byName.set(definition.name, definition);
      } catch (error) {
        throw new CodingAgentError("invalid_settings", `subagent definition: ${errorMessage(error)}`);
      }
    }
  }
  return [...byName.values()];
}

/** Model names the definitions ask for (`model: gpt-5-mini`): each is made once, on the session's provider. */
export function modelNames(definitions: readonly SubagentDefinition[]): string[] {
  return [...new Set(definitions.flatMap((d) => (typeof d.model === "string" ? [d.model] : [])))];
}

export type ChildListener = (event: RunEvent, carried: boolean) => void;

export function createAgents(options: {
  readonly definitions: readonly SubagentDefinition[];
  readonly parent: ParentOptions;
  readonly models: Readonly<Record<string, Model>>;
  readonly depth: number;
  readonly keepTasks: boolean;
  readonly onEvent: ChildListener;
}): Agents {
  try {
    return new Agents({
      agents: options.definitions,
      parent: options.parent,
      models: options.models,
      maxDepth: options.depth,
      atRunEnd: options.keepTasks ? "keep" : "stop",
      onEvent: options.onEvent,
    });
  } catch (error) {
    throw new CodingAgentError("invalid_settings", `subagents: ${errorMessage(error)}`);
  }
}
