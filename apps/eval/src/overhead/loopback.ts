// The loopback model for the overhead suite: a server speaking OpenAI's Chat Completions and Responses and
// Anthropic's Messages (whichever the agent posts to) that answers every request with a shell tool call
// until the session has the turns it wants, then with a final text.
// It timestamps, in its own monotonic clock, when each request arrives and when each response was fully
// written, so "harness time" is measured outside the agent and the same way for every agent.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import {
  anthropicMessagesFormat,
  encodeSse,
  type FakeWireFormat,
  openaiChatFormat,
  openaiResponsesFormat,
} from "@bridle/testing";
import { PrefixTracker } from "./prefix.js";

/** One request the server answered, in milliseconds of its own clock. */
export interface TurnTiming {
  /** When the request's headers arrived. */
  readonly requestAt: number;
  /** When the response's last byte was handed to the socket. */
  readonly respondedAt: number;
  /** The request body's size in bytes. */
  readonly requestBytes: number;
}

/** The tool an agent offers for the turns, found in its first request's tool list. */
export interface ToolShape {
  readonly name: string;
  /** The argument holding the command (or the path, for a read). */
  readonly argument: string;
  /** True when the command is an argv array (older Codex's `shell`) rather than a string. */
  readonly argv: boolean;
}

/**
 * What each turn calls: "shell" runs a command (the harness time then includes starting a process,
 * however the agent isolates it); "read" reads a small file, which leaves the harness's own work.
 */
export type TurnTool = "shell" | "read";

export interface LoopbackModelOptions {
  /** Tool turns before the final answer. */
  readonly toolTurns: number;
  /** Default "shell". */
  readonly tool?: TurnTool;
  /** The command each shell turn asks for; `{n}` is the turn's number. */
  readonly command?: string;
  /** The workspace's absolute path, for a read tool that takes only absolute paths (Claude Code's). */
  readonly workspace?: string;
}

const TOOL_NAMES: Record<
  TurnTool,
  { readonly names: readonly string[]; readonly arguments: readonly string[] }
> = {
  shell: {
    names: ["bash", "shell", "run_shell_command", "exec_command", "run_command", "terminal"],
    arguments: ["command", "cmd"],
  },
  read: { names: ["read_file", "read", "view"], arguments: ["path", "file_path", "filePath"] },
};

/** The file a read turn reads (the workspace's README.md). */
export const READ_PATH = "README.md";

/**
 * A loopback server that plays a scripted tool-using model. `pid` may be set once the agent is spawned:
 * the server reads the agent's peak resident memory (VmHWM) when the final request arrives, before it
 * answers, so the figure covers the whole session without polling.
 */
export class LoopbackModel {
  readonly timings: TurnTiming[] = [];
  /** Problems the server met (no shell tool offered, a body that is not JSON); a run with any is invalid. */
  readonly problems: string[] = [];
  pid: number | undefined;
  peakRssBytes: number | undefined;
  /** CPU time (ms) of the agent and the children it reaped, when the first and the final request arrived. */
  cpuAtFirstMs: number | undefined;
  cpuAtFinalMs: number | undefined;
  tool: ToolShape | undefined;
  /** How much of each request the next repeats byte for byte (summary requests left out). */
  readonly prefix = new PrefixTracker();
  /** The first request's body, as parsed JSON. */
  firstRequest: unknown;
  /** Compaction summary requests answered (a request without tools after the first). */
  summaries = 0;
  readonly #server: Server;
  readonly #options: LoopbackModelOptions;
  #url = "";
  #done!: () => void;
  /** Resolves when the final answer has been sent. */
  readonly finished: Promise<void>;

  private constructor(options: LoopbackModelOptions) {
    this.#options = options;
    this.finished = new Promise((resolve) => {
      this.#done = resolve;
    });
    this.#server = createServer((req, res) => {
      const requestAt = performance.now();
      void this.#handle(req, res, requestAt);
    });
  }

  static async start(options: LoopbackModelOptions): Promise<LoopbackModel> {
    const model = new LoopbackModel(options);
    await new Promise<void>((resolve, reject) => {
      model.#server.once("error", reject);
      model.#server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = model.#server.address() as AddressInfo;
    model.#url = `http://127.0.0.1:${port}`;
    return model;
  }

  /** The OpenAI-compatible base URL (…/v1). */
  get baseUrl(): string {
    return `${this.#url}/v1`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse, requestAt: number): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const format = wireFormatOf(req.url ?? "");
    if (format === undefined) {
      // Model listings, token counts and the like: an empty, valid answer, not counted as a turn.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          req.url?.includes("count_tokens") ? { input_tokens: 0 } : { object: "list", data: [] },
        ),
      );
      return;
    }
    const index = this.timings.length;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      if (index === 0) this.problems.push("the first request's body is not JSON");
    }
    if (index > 0 && isSummaryRequest(parsed)) {
      // A compaction's summary: answered, not a turn; the transcript starts over after it.
      this.summaries++;
      this.prefix.compacted();
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(format.events({ text: SUMMARY }).map(encodeSse).join(""));
      return;
    }
    this.prefix.add(parsed);
    if (index === 0) {
      this.firstRequest = parsed;
      this.#learnShell(parsed);
      this.cpuAtFirstMs = readCpuMs(this.pid);
    }
    const final = index >= this.#options.toolTurns || this.tool === undefined;
    if (final) {
      this.peakRssBytes = readPeakRss(this.pid);
      this.cpuAtFinalMs = readCpuMs(this.pid);
    }
    // Usage as a provider reports it (about four bytes a token), so agents that size their context from
    // the provider's count (pi) see it grow and compact.
    const usage = { inputTokens: Math.ceil(body.length / 4), outputTokens: 20 };
    const events = format.events(final ? { text: "done", usage } : { ...this.#toolTurn(index + 1), usage });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(events.map(encodeSse).join(""), () => {
      this.timings.push({ requestAt, respondedAt: performance.now(), requestBytes: body.length });
      if (final) this.#done();
    });
  }

  #toolTurn(n: number) {
    const tool = this.tool as ToolShape;
    const command = (this.#options.command ?? "echo turn {n}").replaceAll("{n}", String(n));
    const workspace = this.#options.workspace;
    // Claude Code's Read takes `file_path`, which must be absolute; the others take the workspace's path.
    const path = tool.argument === "file_path" && workspace ? `${workspace}/${READ_PATH}` : READ_PATH;
    const value = this.#options.tool === "read" ? path : tool.argv ? ["bash", "-lc", command] : command;
    return {
      toolCalls: [
        { id: `call_${n}`, name: tool.name, arguments: JSON.stringify({ [tool.argument]: value }) },
      ],
    };
  }

  #learnShell(parsed: unknown): void {
    if (parsed === undefined) return;
    const tools = (parsed as { tools?: unknown } | null)?.tools;
    const kind = this.#options.tool ?? "shell";
    this.tool = toolOf(tools, kind);
    if (!this.tool) this.problems.push(`the agent offered no ${kind} tool`);
  }
}

const SUMMARY = "Summary: the user asked for one tool call per turn; each ran and succeeded.";

/** The wire format a request's path asks for; undefined for anything but a model request. */
function wireFormatOf(url: string): FakeWireFormat | undefined {
  const path = url.split("?")[0] ?? "";
  if (path.endsWith("/chat/completions")) return openaiChatFormat;
  if (path.endsWith("/responses")) return openaiResponsesFormat;
  if (path.endsWith("/messages")) return anthropicMessagesFormat;
  return undefined;
}

/** A request that offers no tools, after a session's first: a compaction asking for a summary. */
function isSummaryRequest(parsed: unknown): boolean {
  const tools = (parsed as { tools?: unknown } | null | undefined)?.tools;
  return parsed !== undefined && (!Array.isArray(tools) || tools.length === 0);
}

/** Finds the shell tool among Chat Completions tool definitions. */
export function shellToolOf(tools: unknown): ToolShape | undefined {
  return toolOf(tools, "shell");
}

/**
 * Finds the tool of a kind among a request's tool definitions, by its name (in any case: Claude Code's is
 * `Bash`) and argument. Chat Completions nests a definition under `function`; Responses puts its name and
 * `parameters` on the tool itself; Anthropic's schema is `input_schema`.
 */
export function toolOf(tools: unknown, kind: TurnTool): ToolShape | undefined {
  if (!Array.isArray(tools)) return undefined;
  const { names, arguments: argumentNames } = TOOL_NAMES[kind];
  for (const wanted of names) {
    for (const tool of tools) {
      const definition = ((tool as { function?: unknown }).function ?? tool) as {
        name?: unknown;
        parameters?: unknown;
        input_schema?: unknown;
      };
      if (typeof definition.name !== "string" || definition.name.toLowerCase() !== wanted) continue;
      const schema = (definition.parameters ?? definition.input_schema) as
        | { properties?: Record<string, { type?: unknown }> }
        | undefined;
      const properties = schema?.properties;
      const argument = argumentNames.find((key) => properties?.[key] !== undefined);
      if (argument === undefined) continue;
      return { name: definition.name, argument, argv: properties?.[argument]?.type === "array" };
    }
  }
  return undefined;
}

/** The peak resident set of a live process (Linux /proc), or undefined where unreadable. */
function readPeakRss(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * User and system CPU time of a live process plus that of the children it has waited for (utime, stime,
 * cutime, cstime of /proc/PID/stat), in milliseconds; undefined where unreadable. Unlike wall time, it
 * does not grow with the machine's load, so it shows where the harness spends work on a busy machine.
 */
function readCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS = 100;
