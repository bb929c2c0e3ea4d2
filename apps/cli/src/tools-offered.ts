// What `bridle tools list` shows: the core tools (compose.ts) with the kit's added the way a run adds them
// (memory and session tools, fetch, agent_spawn and the task tools), built without asking any model.
import type { AnyTool, Model, ModelEvent, SessionStore } from "@bridle/core";
import { CliError } from "./cli-error.js";
import { composeTools, SYSTEM_PROMPT, type Toolset } from "./compose.js";
import type { Settings } from "./config.js";
import { prepareKit } from "./kit.js";

export interface OfferedTools {
  readonly tools: readonly AnyTool[];
  readonly choice: Toolset["choice"];
  close(): Promise<void>;
}

export async function offeredTools(settings: Settings): Promise<OfferedTools> {
  const toolset = await composeTools(settings);
  const closers: (() => Promise<void>)[] = [() => toolset.close()];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const kit = await prepareKit(settings, async (name) => listingModel(settings.provider, name), warnLine);
    closers.push(() => kit.close());
    const extended = kit.extend(
      {
        model: listingModel(settings.provider, settings.model),
        tools: toolset.tools,
        hooks: toolset.hooks,
        system: SYSTEM_PROMPT,
      },
      kit.tagStore(unopenedStore),
    );
    return { tools: extended.tools ?? toolset.tools, choice: toolset.choice, close };
  } catch (error) {
    await close();
    throw error;
  }
}

// The session tools hold the store until a run calls them; listing calls none, so no store is opened (a
// Postgres store would need its server, a SQLite one its folder).
const unopened = (): never => {
  throw new CliError("bridle tools list opens no session store");
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

const warnLine = (line: string) => void process.stderr.write(`${line}\n`);

/**
 * The run's model as far as listing needs it: a name for the tools that mention it. Listing runs nothing,
 * so it never asks it; if something did, the answer is an error that says why rather than a request.
 */
function listingModel(provider: string, model: string): Model {
  return {
    provider,
    model,
    async *stream(): AsyncIterable<ModelEvent> {
      yield {
        type: "error",
        error: { code: "invalid_request", message: "bridle tools list asks no model", retryable: false },
      };
    },
  };
}
