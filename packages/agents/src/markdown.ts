import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { BridleError, errorMessage } from "@bridle/core";
import { parse } from "yaml";
import { checkDefinition, type SubagentDefinition } from "./definition.js";

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Front matter keys in the spelling markdown authors use, mapped to the definition's fields. */
const KEYS: Readonly<Record<string, string>> = {
  name: "name",
  description: "description",
  tools: "tools",
  model: "model",
  limits: "limits",
  inherit_hooks: "inheritHooks",
  inheritHooks: "inheritHooks",
  inherit_limits: "inheritLimits",
  inheritLimits: "inheritLimits",
};

/**
 * A subagent declared as markdown: YAML front matter (`name`, `description`, `tools` as a list or a
 * comma-separated string, `model`, `limits`, `inherit_hooks`, `inherit_limits`), and the body as its system
 * prompt. `name` defaults to the file name without `.md`. Throws `invalid_config` naming the source.
 */
export function parseAgentMarkdown(text: string, source = "agent definition"): SubagentDefinition {
  const match = FRONT_MATTER.exec(text.replace(/^\uFEFF/, ""));
  if (!match)
    throw new BridleError("invalid_config", `${source}: no YAML front matter (a block between --- lines)`);
  let data: unknown;
  try {
    data = parse(match[1] as string);
  } catch (error) {
    throw new BridleError(
      "invalid_config",
      `${source}: the front matter is not valid YAML: ${errorMessage(error)}`,
    );
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new BridleError(
      "invalid_config",
      `${source}: the front matter must be a mapping of keys to values`,
    );
  }
  const definition: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const field = KEYS[key];
    if (!field) {
      throw new BridleError(
        "invalid_config",
        `${source}: unknown front matter key "${key}" (known: ${Object.keys(KEYS).join(", ")})`,
      );
    }
    definition[field] = value;
  }
  if (typeof definition.tools === "string") {
    definition.tools = definition.tools
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "");
  }
  if (definition.name === undefined && source.endsWith(".md")) definition.name = basename(source, ".md");
  const body = text.slice((match.index ?? 0) + match[0].length).trim();
  if (body !== "") definition.system = body;
  return checkDefinition(definition, source);
}

/** Every `*.md` file in `dir` as a definition, sorted by file name. A missing folder gives none. */
export async function loadAgentDefinitions(dir: string): Promise<SubagentDefinition[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith(".md")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const definitions: SubagentDefinition[] = [];
  for (const name of names) {
    const path = join(dir, name);
    definitions.push(parseAgentMarkdown(await readFile(path, "utf8"), path));
  }
  return definitions;
}
