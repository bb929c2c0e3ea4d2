import { fileDiffsOf, type RunEvent, type Usage } from "@bridle/core";
import { diffView } from "./diff-view.js";
import { oneLine, terminalJson, visible } from "./display-text.js";
import { usageText } from "./usage-text.js";

export interface Output {
  write(text: string): void;
}

export interface RenderOptions {
  readonly stdout: Output;
  readonly stderr: Output;
  /** Colours and the alive indicator for long calls: on a terminal only. */
  readonly terminal: boolean;
  /** Dollar cost of a turn's usage, when the model's price is known. */
  readonly cost?: (usage: Usage) => number | undefined;
  /** How often a long tool call says it is still running (ms). */
  readonly heartbeatMs?: number;
  /** True while a person answers a question on the terminal (an approval, an MCP form): nothing is written then. */
  readonly asking?: () => boolean;
}

const dim = (on: boolean, text: string) => (on ? `\x1b[2m${text}\x1b[22m` : text);
const red = (on: boolean, text: string) => (on ? `\x1b[31m${text}\x1b[39m` : text);

/**
 * Human rendering of a run: the answer streams to stdout; tool calls, their results, usage and notices go
 * to stderr, one compact line each, so `bridle run … > answer.txt` captures only the answer. Every text the
 * run carries (the model's, tools', servers') is shown with its control characters escaped
 * (display-text.ts); the only escape sequences written are this file's own colours.
 */
export class HumanRenderer {
  readonly #o: RenderOptions;
  readonly #running = new Map<string, { name: string; started: number }>();
  #heartbeat: NodeJS.Timeout | undefined;
  #atLineStart = true;
  #turnTokens = { input: 0, output: 0, cost: 0, costKnown: true };
  /** The run's model, for the cost line's mark when its price is unknown. */
  #model = "";

  constructor(options: RenderOptions) {
    this.#o = options;
  }

  render(event: RunEvent): void {
    const { stderr, terminal } = this.#o;
    switch (event.type) {
      case "run_started":
        this.#model = event.model;
        break;
      case "model_warning":
        this.#endLine();
        stderr.write(dim(terminal, `warning: ${visible(event.message)}\n`));
        break;
      case "text_delta":
        this.#o.stdout.write(visible(event.delta));
        this.#atLineStart = event.delta.endsWith("\n");
        break;
      case "tool_call_requested":
        this.#endLine();
        this.#running.set(event.toolCall.id, { name: oneLine(event.toolCall.name, 80), started: Date.now() });
        stderr.write(
          `${dim(terminal, "→")} ${oneLine(event.toolCall.name, 80)} ${summarizeArguments(event.toolCall.arguments)}\n`,
        );
        this.#startHeartbeat();
        break;
      case "tool_call_completed": {
        this.#running.delete(event.result.toolCallId);
        if (this.#running.size === 0) this.#stopHeartbeat();
        const text = event.result.content
          .map((part) => (part.type === "text" ? part.text : "[image]"))
          .join("");
        const firstLine = oneLine(commandSummary(text) ?? text, 100);
        const took = `${Math.round(event.durationMs)} ms`;
        const name = oneLine(event.result.toolName, 80);
        stderr.write(
          event.result.isError
            ? `${red(terminal, "✗")} ${name} ${dim(terminal, took)} ${firstLine}\n`
            : `${dim(terminal, "✓")} ${name} ${dim(terminal, took)} ${dim(terminal, firstLine)}\n`,
        );
        const diff = event.result.isError ? "" : diffView(fileDiffsOf(event.result.details), terminal);
        if (diff) stderr.write(diff);
        break;
      }
      case "model_request":
        // Said before the turn's text, so the text under it is read as that turn's.
        this.#endLine();
        stderr.write(dim(terminal, `[turn ${event.request}]\n`));
        break;
      case "model_response": {
        this.#endLine();
        const cost = this.#o.cost?.(event.usage);
        this.#turnTokens.input += event.usage.inputTokens;
        this.#turnTokens.output += event.usage.outputTokens;
        if (cost === undefined) this.#turnTokens.costKnown = false;
        else this.#turnTokens.cost += cost;
        stderr.write(dim(terminal, `  ${usageText(event.usage)}${this.#o.cost ? costText(cost) : ""}\n`));
        break;
      }
      case "model_retry":
        this.#endLine();
        // The kind of failure only: its message is said once, by the stopped: line if the retries run out.
        stderr.write(
          dim(
            terminal,
            `retrying (${event.attempt}/${event.maxAttempts}) in ${seconds(event.delayMs)}… (${retryCause(event.error)})\n`,
          ),
        );
        break;
      case "limit_warning":
        stderr.write(
          dim(terminal, `notice: ${event.used} of ${event.max} ${event.limit.replace("_", " ")} used\n`),
        );
        break;
      case "run_completed":
        this.#endLine();
        this.#stopHeartbeat();
        stderr.write(
          dim(
            terminal,
            `done: ${runLine(event.usage.modelRequests, event.usage.toolCalls, event.usage.tokens)}${this.#totalCost()}\n`,
          ),
        );
        break;
      case "run_failed":
        this.#endLine();
        this.#stopHeartbeat();
        stderr.write(
          `${red(terminal, "stopped:")} ${event.stopReason}: ${oneLine(event.error.message, 600)}\n`,
        );
        break;
      default:
        break;
    }
  }

  close(): void {
    this.#stopHeartbeat();
  }

  #totalCost(): string {
    // Never a guess: a model without a price says so rather than showing a neighbour's figure or none.
    if (!this.#o.cost) return "";
    if (!this.#turnTokens.costKnown)
      return ` · cost unknown: no price for ${this.#model ? oneLine(this.#model, 80) : "this model"}`;
    return this.#turnTokens.cost > 0 ? ` · $${this.#turnTokens.cost.toFixed(4)}` : "";
  }

  #endLine(): void {
    if (!this.#atLineStart) {
      this.#o.stdout.write("\n");
      this.#atLineStart = true;
    }
  }

  #startHeartbeat(): void {
    if (this.#heartbeat) return;
    const every = this.#o.heartbeatMs ?? 5000;
    this.#heartbeat = setInterval(() => {
      // A line written under a question would land in the answer the person is typing.
      if (this.#o.asking?.()) return;
      const now = Date.now();
      for (const { name, started } of this.#running.values()) {
        const seconds = Math.round((now - started) / 1000);
        if (now - started >= every)
          this.#o.stderr.write(dim(this.#o.terminal, `⋯ ${name} still running (${seconds}s)\n`));
      }
    }, every);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

/**
 * A short view of a call's arguments: the path or command when there is one, else the JSON, cut, on one
 * line with its control characters escaped (the approval prompt shows it too).
 */
export function summarizeArguments(raw: string): string {
  try {
    const args = JSON.parse(raw) as Record<string, unknown>;
    // Each profile's names for the same thing: the generic path, Claude Code's file_path, Codex's argv.
    for (const key of ["command", "path", "file_path", "pattern", "query", "url", "key", "session_id"]) {
      const value = args[key];
      if (typeof value === "string") return oneLine(value, 80);
      if (Array.isArray(value) && value.length > 0 && value.every((word) => typeof word === "string"))
        return oneLine(value.join(" "), 80);
    }
  } catch {
    // Malformed arguments are shown raw; the tool's InvalidInput result says what is wrong.
  }
  return oneLine(raw, 80);
}

/** For a shell result (JSON with exit_code), "exit N" and the last line of output instead of the JSON. */
function commandSummary(text: string): string | undefined {
  if (!text.startsWith("{") || !text.includes('"exit_code"')) return undefined;
  try {
    const result = JSON.parse(text) as {
      exit_code?: unknown;
      stdout?: unknown;
      stderr?: unknown;
      timed_out?: unknown;
    };
    if (typeof result.exit_code !== "number" && result.exit_code !== null) return undefined;
    const output = `${typeof result.stdout === "string" ? result.stdout : ""}${typeof result.stderr === "string" ? result.stderr : ""}`;
    const lines = output.trim().split("\n");
    const status = result.timed_out === true ? "timed out" : `exit ${result.exit_code}`;
    return `${status}${lines.length > 0 && lines[0] ? ` · ${lines.at(-1)}` : ""}`;
  } catch {
    return undefined;
  }
}

const RETRY_CAUSES: Readonly<Record<string, string>> = {
  rate_limit: "rate limited",
  server: "server error",
  timeout: "no answer",
  network: "connection failed",
};

function retryCause(error: { readonly code: string; readonly status?: number }): string {
  const words = RETRY_CAUSES[error.code] ?? oneLine(error.code, 40);
  return error.status === undefined ? words : `${words} ${error.status}`;
}

/** A wait as a person reads it: tenths under ten seconds, whole seconds above. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return s < 10 ? `${Number(s.toFixed(1))} s` : `${Math.round(s)} s`;
}

function runLine(requests: number, toolCalls: number, tokens: Usage): string {
  return `${counted(requests, "model request")} · ${counted(toolCalls, "tool call")} · ${usageText(tokens)}`;
}

/** "1 model request", "2 model requests". */
export function counted(n: number, thing: string): string {
  return `${n} ${thing}${n === 1 ? "" : "s"}`;
}

function costText(cost: number | undefined): string {
  return cost === undefined ? " · cost unknown" : ` · $${cost.toFixed(4)}`;
}

/** JSON lines: one event per line, exactly as the run emitted it (parsed back, the same strings). */
export function jsonLine(event: RunEvent): string {
  return `${terminalJson(event)}\n`;
}
