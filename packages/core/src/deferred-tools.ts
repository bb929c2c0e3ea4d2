import { z } from "zod";
import { BridleError, ToolFailure } from "./errors.js";
import type { Message } from "./messages.js";
import { searchTerms } from "./store.js";
import { matchText } from "./text-match.js";
import { type AnyTool, defineTool } from "./tool.js";

/** The search tool's name when none is given (seed 003's OpenAI-style name; Claude's is `ToolSearch`). */
export const TOOL_SEARCH = "tool_search";

/** At most this many tools are found (and so offered) per search: a vague query must not load them all. */
const MAX_FOUND = 5;

/** What a search result carries for the harness: the names it offered. Read back from the transcript. */
export interface ToolSearchDetails {
  readonly loaded: readonly string[];
}

/**
 * Tools kept out of the request until the model finds them with the search tool: the harness's rarely
 * needed tools cost no request bytes until a run needs one. Which are offered is never separate state:
 * it is read from the search results in the transcript, so a resumed session offers what it had found.
 */
export class DeferredTools {
  readonly searchName: string;
  /** The search tool, offered with the harness's own tools. */
  readonly search: AnyTool;
  readonly #tools: ReadonlyMap<string, AnyTool>;
  /** Stand-ins for tools not found yet: a call to one is answered with how to find it. */
  readonly #gates: ReadonlyMap<string, AnyTool>;

  constructor(tools: readonly AnyTool[], searchName: string = TOOL_SEARCH) {
    const byName = new Map<string, AnyTool>();
    for (const tool of tools) {
      if (byName.has(tool.name))
        throw new BridleError("duplicate_tool", `two tools are named "${tool.name}"`);
      byName.set(tool.name, tool);
    }
    if (byName.has(searchName)) {
      throw new BridleError(
        "duplicate_tool",
        `a deferred tool is named "${searchName}", the search tool's name`,
      );
    }
    this.searchName = searchName;
    this.#tools = byName;
    this.#gates = new Map([...byName.keys()].map((name) => [name, this.#gate(name)]));
    this.search = this.#searchTool();
  }

  get names(): readonly string[] {
    return [...this.#tools.keys()];
  }

  /** The tool a call is run with: the tool once found, else its stand-in. */
  callable(name: string, found: ReadonlySet<string>): AnyTool | undefined {
    return found.has(name) ? this.#tools.get(name) : this.#gates.get(name);
  }

  tool(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  /** Adds to `found`, in the order they were found, the tools the search results in `messages` offered. */
  collectFound(messages: readonly Message[], found: Set<string>): void {
    for (const message of messages) {
      if (message.role !== "tool" || message.toolName !== this.searchName || message.isError) continue;
      const loaded = (message.details as Partial<ToolSearchDetails> | undefined)?.loaded;
      if (!Array.isArray(loaded)) continue;
      for (const name of loaded) if (typeof name === "string" && this.#tools.has(name)) found.add(name);
    }
  }

  /** Exact names first (a query may list several), else the best keyword matches of name and description. */
  find(query: string): string[] {
    const named = query
      .split(/[\s,]+/)
      .map((word) => [...this.#tools.keys()].find((name) => name.toLowerCase() === word.toLowerCase()))
      .filter((name): name is string => name !== undefined);
    if (named.length > 0) return [...new Set(named)].slice(0, MAX_FOUND);
    const terms = searchTerms(query);
    const scored: { name: string; score: number }[] = [];
    for (const [name, tool] of this.#tools) {
      const text = `${name.replaceAll(/[_-]/g, " ")} ${tool.description}`;
      // Any term counts (more terms, higher score): a model's wording rarely matches every word.
      let score = 0;
      for (const term of terms) score += matchText(text, [term])?.score ?? 0;
      if (score > 0) scored.push({ name, score });
    }
    return scored
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_FOUND)
      .map(({ name }) => name);
  }

  #searchTool(): AnyTool {
    const names = this.names.join(", ");
    return defineTool({
      name: this.searchName,
      description: `Adds tools from your next step: ${names}. Query names or keywords.`,
      inputSchema: z.object({ query: z.string().min(1).max(500) }),
      annotations: { read_only: true, idempotent: true },
      execute: async ({ query }) => {
        const found = this.find(query);
        if (found.length === 0) {
          return {
            content: `No tool matches "${query.slice(0, 100)}". Tools you can find: ${names}.`,
            details: { loaded: [] } satisfies ToolSearchDetails,
          };
        }
        const lines = found.map(
          (name) => `- ${name}: ${firstSentence(this.#tools.get(name)?.description ?? "")}`,
        );
        return {
          content: `Offered from your next step:\n${lines.join("\n")}`,
          details: { loaded: found } satisfies ToolSearchDetails,
        };
      },
    });
  }

  #gate(name: string): AnyTool {
    return defineTool({
      name,
      description: "",
      // Whatever was sent: the call is answered before its arguments matter.
      inputSchema: z.unknown(),
      annotations: { read_only: true },
      execute: async () => {
        throw new ToolFailure(
          "UnknownTool",
          `${name} is not offered yet: call ${this.searchName} with query "${name}", then call ${name} again with the parameters it then shows`,
        );
      },
    });
  }
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  const sentence = end < 0 ? text : text.slice(0, end + 1);
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}
