// What the model was told besides the messages: the system prompt and the tools it was offered. A
// model_request event carries them, but only when they differ from what this harness last recorded for
// the session (and agent), so a session holds them once, plus once per change (an MCP server's tools
// joining, a resumed session in a new process), not once per request.
import { createHash } from "node:crypto";
import type { ToolSchema } from "./model.js";
import type { RunContext } from "./run-context.js";

/** What a model request sent besides the messages (`ModelRequestEvent.setup`). */
export interface RequestSetup {
  /** The system prompt as sent (workspace instructions and output instructions included); "" for none. */
  readonly system: string;
  readonly tools: readonly {
    readonly name: string;
    readonly description: string;
    readonly inputSchema: Readonly<Record<string, unknown>>;
  }[];
}

// A harness serving a long-lived process sees many sessions: past this many, the oldest are forgotten
// (their next run records its setup again, which costs one copy).
const MAX_SESSIONS = 1_000;

/** The last setup recorded per session and agent, by digest. One per harness. */
export class RequestSetupRecords {
  readonly #last = new Map<string, string>();

  /** The setup to put on the next model_request: undefined when this key last recorded the same one. */
  changed(
    context: RunContext,
    system: string | undefined,
    tools: readonly ToolSchema[],
  ): RequestSetup | undefined {
    const setup: RequestSetup = {
      system: system ?? "",
      tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    };
    const digest = createHash("sha256").update(JSON.stringify(setup)).digest("base64url");
    const { sessionId, agentName } = context.identity;
    // Without a session, each run is its own record.
    const key = `${sessionId ?? context.runId}\0${agentName ?? ""}`;
    if (this.#last.get(key) === digest) return undefined;
    this.#last.delete(key);
    this.#last.set(key, digest);
    if (this.#last.size > MAX_SESSIONS) {
      const oldest = this.#last.keys().next().value;
      if (oldest !== undefined) this.#last.delete(oldest);
    }
    return setup;
  }
}
