// What the kit adds to a run's display: compactions (what was summarised, tokens before and after),
// subagents' work nested under the call that started it, and the background tasks a run left behind.
// Human lines go to stderr beside the renderer's; with --json the same facts are JSON lines on stdout.
import { isSubagentEventData, type RunTasksFact } from "@bridle/agents";
import {
  type CompactionEvent,
  estimateMessagesTokens,
  estimateTextTokens,
  fileDiffsOf,
  type Message,
  type RunEvent,
  TranscriptProjection,
  textOf,
} from "@bridle/core";
import type { Agent } from "../run/agent.js";
import { changedFilesView } from "./diff-view.js";
import { oneLine, visible } from "./display-text.js";
import { counted, type HumanRenderer, jsonLine, type Output, summarizeArguments } from "./render.js";

export interface RunViewOptions {
  readonly agent: Agent;
  readonly history: readonly Message[];
  readonly json: boolean;
  readonly renderer: HumanRenderer;
  readonly stdout: Output;
  readonly stderr: Output;
  readonly terminal: boolean;
  /** Model warnings already said this session: each is said once, not at every prompt. */
  readonly warned?: Set<string>;
}

const dim = (on: boolean, text: string) => (on ? `\x1b[2m${text}\x1b[22m` : text);

export class RunView {
  readonly #o: RunViewOptions;
  readonly #transcript: TranscriptProjection;
  readonly #fixedTokens: number;
  readonly #warned = new Set<string>();

  constructor(options: RunViewOptions) {
    this.#o = options;
    this.#transcript = new TranscriptProjection(options.history);
    this.#fixedTokens =
      estimateTextTokens(options.agent.kit.system ?? "") +
      estimateTextTokens(JSON.stringify(options.agent.harness.toolSchemas));
    // Child events outside any spawning call (background tasks) reach the view here.
    options.agent.kit.listen((event, carried) => {
      if (!carried) this.#child(event);
    });
  }

  show(event: RunEvent): void {
    this.#transcript.apply(event);
    const { json, renderer } = this.#o;
    if (event.type === "compaction") {
      const report = { ...event, tokensAfter: this.#tokensAfter(event) };
      if (json) this.#o.stdout.write(jsonLine(report as RunEvent));
      else this.#line(compactionLine(report));
      return;
    }
    if (json) {
      this.#o.stdout.write(jsonLine(event));
      return;
    }
    if (event.type === "tool_progress" && isSubagentEventData(event.data)) {
      this.#nested(event.data.event, 1);
      return;
    }
    if (event.type === "fact" && event.kind === "agents.tasks") {
      this.#line(tasksLine(event.data as RunTasksFact));
      return;
    }
    // MCP servers start in the background: one that fails is said once, by name (its message names it).
    if (event.type === "fact" && (event.kind === "mcp.server_failed" || event.kind === "mcp.tool_refused")) {
      const message = (event.data as { message?: unknown } | undefined)?.message;
      if (typeof message === "string") this.#line(`bridle: warning: ${oneLine(message, 2_000)}`);
      return;
    }
    if (event.type === "model_warning") {
      const key = `${event.code}:${event.message}`;
      const warned = this.#o.warned ?? this.#warned;
      if (warned.has(key)) return;
      warned.add(key);
      // The adapter speaks of its `models` option; a person at the CLI has the config's section.
      if (event.code === "model_unknown") {
        renderer.render({ ...event, message: unknownModelWarning(this.#o.agent.model) });
        return;
      }
    }
    renderer.render(event);
    // A command's changes beyond its diffs (the renderer draws those): files named, and the count.
    if (event.type === "tool_call_completed") {
      const more = changedFilesView(
        event.result.details,
        fileDiffsOf(event.result.details).length,
        this.#o.terminal,
      );
      if (more) this.#o.stderr.write(more);
    }
  }

  close(): void {
    this.#o.agent.kit.listen(undefined);
  }

  #tokensAfter(event: CompactionEvent): number {
    // The harness reports the tokens before; after is this estimate of what the next request carries.
    const carried = (event as CompactionEvent & { tokensAfter?: unknown }).tokensAfter;
    if (typeof carried === "number") return carried;
    return estimateMessagesTokens(this.#transcript.messages) + this.#fixedTokens;
  }

  #child(event: RunEvent): void {
    if (this.#o.json) this.#o.stdout.write(jsonLine({ type: "subagent_event", event } as never));
    else this.#nested(event, 1, "background ");
  }

  #nested(event: RunEvent, depth: number, where = ""): void {
    if (event.type === "tool_progress" && isSubagentEventData(event.data)) {
      this.#nested(event.data.event, depth + 1, where);
      return;
    }
    const line = childLine(event);
    if (line === undefined) return;
    this.#line(`${"  ".repeat(depth)}↳ ${where}[${event.agentName ?? "subagent"}] ${line}`);
  }

  // Every line here carries text of the run (summaries, subagents' calls, task names): escaped as a whole.
  #line(text: string): void {
    this.#o.stderr.write(`${dim(this.#o.terminal, visible(text))}\n`);
  }
}

/** The unknown-model warning in the words of the README's "Models bridle does not know" section. */
export function unknownModelWarning(model: { readonly provider: string; readonly model: string }): string {
  return `${model.provider}/${model.model} is not in bridle's model table: its context window, prices and capabilities are unknown; describe it in the "models" section of your config`;
}

function childLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case "run_started":
      return "started";
    case "tool_call_requested":
      return `→ ${event.toolCall.name} ${summarizeArguments(event.toolCall.arguments)}`;
    case "tool_call_completed":
      return `${event.result.isError ? "✗" : "✓"} ${event.result.toolName}`;
    case "compaction":
      return `compacted ${event.replacedCount} messages`;
    case "run_completed":
      return `done: ${counted(event.usage.modelRequests, "model request")} · ${counted(event.usage.toolCalls, "tool call")}`;
    case "run_failed":
      return `stopped: ${event.stopReason}: ${event.error.message}`;
    default:
      return undefined;
  }
}

export function compactionLine(event: CompactionEvent & { readonly tokensAfter: number }): string {
  const why =
    event.reason === "overflow"
      ? "after the provider's context overflow"
      : event.reason === "threshold"
        ? "near the context window"
        : "on request";
  const summary = textOf(event.summary.role === "user" ? event.summary.content : []);
  const first = summary
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line !== "" && !line.startsWith("["));
  const before = event.tokensBefore === undefined ? "" : `~${event.tokensBefore} → `;
  return `compacted ${why}: ${event.replacedCount} messages summarised (${summary.length} characters) · tokens ${before}~${event.tokensAfter}${first ? `\n  summary: ${first.slice(0, 160)}` : ""}`;
}

function tasksLine(fact: RunTasksFact): string {
  const list = (reports: RunTasksFact["stopped"]) =>
    reports.map((r) => `${r.task_id} (${r.agent_key}, ${r.status})`).join(", ");
  const parts = [
    fact.stopped.length > 0 ? `stopped at run end: ${list(fact.stopped)}` : "",
    fact.leftRunning.length > 0 ? `left running: ${list(fact.leftRunning)}` : "",
    fact.ended.length > 0 ? `ended: ${list(fact.ended)}` : "",
  ].filter(Boolean);
  return `background tasks · ${parts.join(" · ")}`;
}
