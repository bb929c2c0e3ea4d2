import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CODING, describeChoice } from "@bridle/coding-agent";
import { toolSchemaOf } from "@bridle/core";
import { composeAgent } from "../run/agent.js";
import type { CliFlags } from "../settings/args.js";
import { loadSettings } from "../settings/config.js";

/** `bridle tools list`: the tools exactly as the model is shown them, the kit's (agents, memory, fetch) included. */
export async function toolsList(flags: CliFlags): Promise<number> {
  const settings = await loadSettings(flags, process.env, undefined, { workspaceAgents: false });
  // The agent as `bridle run` would build it, with no model asked and no store opened.
  const toolset = await composeAgent(settings, undefined, DEFAULT_CODING, "list");
  try {
    // What the first request carries, then the tools that wait behind the search tool (marked deferred).
    const schemas = [
      ...toolset.harness.toolSchemas,
      ...(toolset.options.deferredTools ?? []).map((tool) => ({ ...toolSchemaOf(tool), deferred: true })),
    ];
    if (settings.json) {
      process.stdout.write(`${JSON.stringify(schemas, null, 2)}\n`);
      return 0;
    }
    process.stdout.write(`${describeChoice(toolset.choice)}\n`);
    if (existsSync(join(settings.cwd, ".bridle", "agents"))) {
      // Listing asks no trust question, so the workspace's definitions are not read (config.ts).
      process.stdout.write(
        "agent_spawn: the workspace's .bridle/agents are not read here; a run adds them once you trust them\n",
      );
    }
    for (const schema of schemas) {
      const properties = Object.keys(
        (schema.inputSchema.properties as Record<string, unknown> | undefined) ?? {},
      );
      const required = new Set((schema.inputSchema.required as string[] | undefined) ?? []);
      const params = properties.map((p) => (required.has(p) ? p : `${p}?`)).join(", ");
      const deferred = "deferred" in schema ? " (deferred: offered once found with the search tool)" : "";
      process.stdout.write(`${schema.name} {${params}}${deferred}\n  ${schema.description.split("\n")[0]}\n`);
    }
    return 0;
  } finally {
    await toolset.close();
  }
}
