import type { AnyTool, ToolSource } from "@bridle/core";
import { errorMessage } from "@bridle/core";
import type { McpConnection } from "./connection.js";
import { buildToolset, type McpWarning, type ServerOutcome, type ToolsetSettings } from "./toolset.js";

/** A fact the source records on the run that reads it next, as a `fact` event of this kind. */
export type McpSourceFact =
  | {
      readonly kind: "mcp.server_ready";
      readonly data: { readonly server: string; readonly tools: readonly string[] };
    }
  | {
      readonly kind: "mcp.server_failed";
      readonly data: { readonly server: string; readonly message: string };
    }
  | {
      readonly kind: "mcp.tool_refused";
      readonly data: { readonly server: string; readonly message: string };
    };

/**
 * The servers connecting in the background, as a tool source a harness reads before each model request:
 * a server's tools are offered from the first request after it is up, and nothing waits for a server
 * that is slow to start. Each server that comes up, or fails, is told once as a fact.
 */
export interface McpToolSource extends ToolSource {
  /** Settles once every server is up or has failed; never rejects. */
  readonly settled: Promise<void>;
  takeFacts(): McpSourceFact[];
  /** Told each time the offered tools change (a server came up, its list changed); returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/** The one `McpToolSource` of an `McpServers`. */
export class BackgroundServers implements McpToolSource {
  /** Settles once every server is up or has failed; never rejects. */
  readonly settled: Promise<void>;
  readonly #outcomes: ServerOutcome[];
  readonly #settings: ToolsetSettings;
  readonly #warn: (warning: McpWarning) => void;
  readonly #facts: McpSourceFact[] = [];
  readonly #told = new Set<string>();
  readonly #changed = new Set<() => void>();
  #tools: readonly AnyTool[] = [];

  constructor(
    connections: readonly McpConnection[],
    settings: ToolsetSettings,
    warn: (warning: McpWarning) => void,
  ) {
    this.#settings = settings;
    this.#warn = warn;
    this.#outcomes = connections.map((connection) => ({ connection, pending: true }));
    this.settled = Promise.all(connections.map((_, index) => this.#connect(index))).then(() => {});
  }

  tools(): readonly AnyTool[] {
    return this.#tools;
  }

  takeFacts(): McpSourceFact[] {
    return this.#facts.splice(0);
  }

  /** Told each time the offered tools change (a server came up, its list changed); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#changed.add(listener);
    return () => this.#changed.delete(listener);
  }

  /** A server said its tool list changed (and it was fetched again): offer the new list. */
  async refresh(server: string): Promise<void> {
    const index = this.#outcomes.findIndex((outcome) => outcome.connection.name === server);
    const outcome = this.#outcomes[index];
    if (!outcome || !("tools" in outcome)) return;
    try {
      const tools = await outcome.connection.tools();
      this.#outcomes[index] = { ...outcome, tools };
    } catch {
      // Still the last list: a call to a tool that left fails on its own with a way forward.
      return;
    }
    this.#rebuild();
  }

  async #connect(index: number): Promise<void> {
    const connection = (this.#outcomes[index] as ServerOutcome).connection;
    try {
      const tools = await connection.tools();
      const hasResources = await connection.hasResources();
      this.#outcomes[index] = { connection, tools, hasResources };
      const offered = this.#rebuild();
      this.#facts.push({
        kind: "mcp.server_ready",
        data: { server: connection.name, tools: offered.get(connection.name) ?? [] },
      });
    } catch (error) {
      this.#outcomes[index] = { connection, error };
      this.#facts.push({
        kind: "mcp.server_failed",
        data: {
          server: connection.name,
          message: `MCP server "${connection.name}" failed to start; its tools are not offered: ${errorMessage(error)}`,
        },
      });
    }
  }

  #rebuild(): Map<string, string[]> {
    const once = (key: string) => {
      if (this.#told.has(key)) return false;
      this.#told.add(key);
      return true;
    };
    const { tools, failures, byServer } = buildToolset(this.#outcomes, this.#settings, (warning) => {
      if (once(`${warning.server}\0${warning.code}\0${warning.message}`)) this.#warn(warning);
    });
    for (const failure of failures) {
      if (failure.code === "duplicate_tool" && once(`${failure.server}\0${failure.message}`)) {
        this.#facts.push({
          kind: "mcp.tool_refused",
          data: { server: failure.server, message: failure.message },
        });
      }
    }
    this.#tools = tools;
    for (const listener of this.#changed) listener();
    return byServer;
  }
}
