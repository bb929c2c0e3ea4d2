import type {
  ApprovalResolvedEvent,
  EventSink,
  Message,
  ModelResponseEvent,
  RunCompletedEvent,
  RunEvent,
  RunFailedEvent,
  RunStartedEvent,
  ToolCallCompletedEvent,
  ToolCallPart,
  ToolCallRequestedEvent,
} from "@bridle/core";
import { TranscriptProjection } from "@bridle/core";
import {
  type Attributes,
  type Context,
  context,
  diag,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { millisToHrTime } from "@opentelemetry/core";
import manifest from "../package.json" with { type: "json" };
import { ATTR, EVENT, OPERATION } from "./attributes.js";
import {
  type Captured,
  type ContentCaptureOptions,
  capEncodedMessages,
  capJsonText,
  capMessages,
  captureLimit,
  conventionMessage,
  finishReason,
  outputMessage,
  toolResultText,
  truncateText,
} from "./content.js";
import { mcpExchangeAttributes } from "./mcp-exchange.js";
import { serverAttributes } from "./server-endpoint.js";
import {
  conventionProviderName,
  identityAttributes,
  markError,
  momentOf,
  runCounterAttributes,
  setCaptured,
  toolAttributes,
  usageAttributes,
} from "./span-attributes.js";
import { type McpToolName, parseMcpToolName } from "./tool-kind.js";

export const INSTRUMENTATION_NAME = "@bridle/tracing-otel";
/** The package's own version, so the instrumentation scope follows releases. */
export const INSTRUMENTATION_VERSION: string = manifest.version;

export interface RunTracerOptions {
  /** Where spans go. Defaults to the global OpenTelemetry API's tracer provider. */
  readonly tracerProvider?: TracerProvider;
  /** Parent of top-level runs' spans (default: the active context when the run starts). */
  readonly parentContext?: Context;
  /**
   * Record prompts, model output, tool arguments and results (default: off, unless the environment sets
   * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). Each value is capped at `maxLength` characters.
   */
  readonly captureContent?: boolean | ContentCaptureOptions;
  /**
   * The configured MCP server names, so tool names `mcp_{server}_{tool}` are split right when a server's
   * name holds an underscore.
   */
  readonly mcpServers?: readonly string[];
  /** Recognizes MCP tools by name, for another naming scheme (default: `parseMcpToolName`). */
  readonly mcpToolName?: (toolName: string) => McpToolName | undefined;
  /**
   * `gen_ai.provider.name` for a model's provider id (default: `conventionProviderName`, which maps
   * "openai-chat" to "openai" and passes other ids through).
   */
  readonly providerName?: (provider: string) => string;
  /**
   * The base URL each provider's requests go to, by provider id ("openai", "anthropic"): chat spans
   * carry its `server.address` and `server.port`. A provider left out gets neither (the tracer sees
   * events, not the connection, and a guessed public endpoint would be wrong behind a proxy).
   */
  readonly endpoints?: Readonly<Record<string, string>>;
}

interface OpenSpan {
  readonly span: Span;
  /** Epoch milliseconds. */
  readonly start: number;
}

interface ToolSpan extends OpenSpan {
  /** The span began at an approval, so it also covers the wait for the decision. */
  approval: boolean;
}

interface ChatSpan extends OpenSpan {
  readonly request: number;
  firstChunkAt?: number;
}

interface RunState {
  readonly runId: string;
  readonly span: Span;
  readonly context: Context;
  readonly provider: string;
  readonly model: string;
  /** `server.address` and `server.port` of the provider's endpoint, for its chat spans. */
  readonly server: Attributes;
  chat?: ChatSpan;
  readonly tools: Map<string, ToolSpan>;
  /** Decisions given before their call was recorded (a resumed run), by call id. */
  readonly decisions: Map<string, ApprovalResolvedEvent>;
  /** The latest end time of anything in the run, so the run's span never ends before its children. */
  lastEnd: number;
  lastSeq: number;
  readonly transcript?: TranscriptProjection;
}

/** How many ended runs are remembered (to link a resumed run, to ignore a straggler's late events). */
const MAX_REMEMBERED = 1000;

/**
 * Turns a run's events into OpenTelemetry spans following the GenAI semantic conventions: `invoke_agent`
 * for the run, `chat` for each model request, `execute_tool` for each tool call. A subagent's run nests
 * under the `execute_tool` span of the call that started it (its events carry parentRunId and
 * parentToolCallId). It is an EventSink, so it can be passed as a run's `sink`; or call `observe` with each
 * event while iterating the stream. It never throws: a tracing fault is reported through OpenTelemetry's
 * diag logger and the run goes on.
 */
export class RunTracer implements EventSink {
  readonly #tracer: Tracer;
  readonly #parent: Context | undefined;
  readonly #maxContent: number | undefined;
  readonly #mcp: (toolName: string) => McpToolName | undefined;
  readonly #providerName: (provider: string) => string;
  readonly #endpoints: Readonly<Record<string, string>>;
  readonly #runs = new Map<string, RunState>();
  readonly #paused = new Map<string, SpanContext>();
  /** Spans of calls that waited for approval when their run paused, by run id and call id. */
  readonly #pausedCalls = new Map<string, SpanContext>();
  /** Runs that ended, with the last sequence number seen. */
  readonly #ended = new Map<string, number>();
  /** Each message's convention JSON, computed once however many requests resend it. */
  readonly #encoded = new WeakMap<Message, string>();

  constructor(options: RunTracerOptions = {}) {
    const provider = options.tracerProvider ?? trace.getTracerProvider();
    this.#tracer = provider.getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
    this.#parent = options.parentContext;
    this.#maxContent = captureLimit(options.captureContent);
    this.#providerName = options.providerName ?? conventionProviderName;
    this.#endpoints = options.endpoints ?? {};
    const servers = options.mcpServers;
    this.#mcp = options.mcpToolName ?? ((name) => parseMcpToolName(name, servers));
  }

  /** Whether prompts, outputs, arguments and results are recorded. */
  get capturesContent(): boolean {
    return this.#maxContent !== undefined;
  }

  /** Spans started and not yet ended (runs, model requests, tool calls). */
  get openSpans(): number {
    let count = 0;
    for (const run of this.#runs.values()) count += 1 + (run.chat ? 1 : 0) + run.tools.size;
    return count;
  }

  write(event: RunEvent): void {
    this.observe(event);
  }

  observe(event: RunEvent): void {
    try {
      this.#observe(event);
    } catch (error) {
      diag.error(`${INSTRUMENTATION_NAME}: could not trace a ${event.type} event`, error);
    }
  }

  /**
   * Ends every span still open, as errors of type `reason`. For a consumer that stops reading a run's
   * stream before its terminal event (the run's own events always end its spans otherwise).
   */
  endAll(reason = "abandoned", time = Date.now()): void {
    for (const [runId, run] of this.#runs) {
      this.#endChildren(run, reason, time);
      markError(run.span, reason, `the run's tracing ended before the run did (${reason})`);
      run.span.end(millisToHrTime(Math.max(time, run.lastEnd)));
      this.#runs.delete(runId);
      remember(this.#ended, runId, run.lastSeq);
    }
  }

  #observe(event: RunEvent): void {
    const known = this.#runs.get(event.runId);
    // An event seen before (a stream fed twice, a replay) changes nothing: sequence numbers only grow.
    if (known) {
      if (event.seq <= known.lastSeq) return;
      known.lastSeq = event.seq;
    } else {
      const endedAt = this.#ended.get(event.runId);
      // After a run ends, only its resumption starts it again; a tool left running can still report
      // progress, which must not open a new span.
      if (endedAt !== undefined && (event.type !== "run_started" || event.seq <= endedAt)) return;
    }
    if (event.type === "run_started") {
      this.#start(event);
      return;
    }
    const run = known ?? this.#startLate(event);
    run.transcript?.apply(event);
    switch (event.type) {
      case "model_request":
        this.#endChat(run, "no_response", "a new model request began before this one's response", event.time);
        run.chat = {
          span: this.#tracer.startSpan(
            `${OPERATION.chat} ${run.model}`,
            {
              kind: SpanKind.CLIENT,
              startTime: millisToHrTime(event.time),
              attributes: {
                [ATTR.operationName]: OPERATION.chat,
                [ATTR.providerName]: run.provider,
                [ATTR.requestModel]: run.model,
                [ATTR.request]: event.request,
                ...run.server,
                ...(event.sessionId ? { [ATTR.conversationId]: event.sessionId } : {}),
              },
            },
            run.context,
          ),
          start: event.time,
          request: event.request,
        };
        if (run.transcript && this.#maxContent !== undefined) {
          setCaptured(
            run.chat.span,
            ATTR.inputMessages,
            this.#capTranscript(run.transcript.messages, this.#maxContent),
          );
        }
        break;
      case "text_delta":
      case "reasoning_delta":
      case "tool_call_delta":
        if (run.chat && run.chat.firstChunkAt === undefined) run.chat.firstChunkAt = event.time;
        break;
      case "model_response":
        this.#response(run, event);
        break;
      case "tool_call_requested":
        this.#toolRequested(run, event);
        break;
      case "approval_requested": {
        // Approval is settled before the batch's calls are recorded: the call's span starts here.
        const tool = this.#openTool(run, event.toolCall, event.time, []);
        tool.approval = true;
        tool.span.addEvent(EVENT.approvalRequested, {}, millisToHrTime(event.time));
        break;
      }
      case "approval_resolved":
        this.#approvalResolved(run, event);
        break;
      case "tool_call_completed":
        this.#toolCompleted(run, event);
        break;
      case "run_completed":
      case "run_failed":
        this.#finish(run, event);
        break;
      case "model_retry":
        // On the request it delays: a slow chat span shows the failed attempts and waits inside it.
        (run.chat?.span ?? run.span).addEvent(
          EVENT.modelRetry,
          {
            "bridle.model_retry.attempt": event.attempt,
            "bridle.model_retry.max_attempts": event.maxAttempts,
            "bridle.model_retry.delay_ms": event.delayMs,
            [ATTR.errorType]: event.error.code,
          },
          millisToHrTime(event.time),
        );
        break;
      default: {
        const moment = momentOf(event);
        if (moment) run.span.addEvent(moment.name, moment.attributes, millisToHrTime(event.time));
        break;
      }
    }
  }

  #start(event: RunStartedEvent): void {
    const existing = this.#runs.get(event.runId);
    if (existing) {
      // A second start for a run still open: close the first rather than leave it dangling.
      this.#finishOpen(event.runId, existing, "restarted", event.time);
    }
    const links: Link[] = [];
    this.#ended.delete(event.runId);
    const paused = this.#paused.get(event.runId);
    if (paused) {
      links.push({ context: paused, attributes: { [ATTR.resumed]: event.resumed ?? "true" } });
      this.#paused.delete(event.runId);
    }
    const attributes: Attributes = {
      [ATTR.operationName]: OPERATION.invokeAgent,
      [ATTR.providerName]: this.#providerName(event.provider),
      [ATTR.requestModel]: event.model,
      [ATTR.runId]: event.runId,
      [ATTR.historyLength]: event.historyLength,
      ...identityAttributes(event),
      ...(event.resumed ? { [ATTR.resumed]: event.resumed } : {}),
    };
    const name = event.agentName ? `${OPERATION.invokeAgent} ${event.agentName}` : OPERATION.invokeAgent;
    const parent = this.#parentOf(event);
    const span = this.#tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, startTime: millisToHrTime(event.time), attributes, links },
      parent,
    );
    const transcript = this.#maxContent === undefined ? undefined : new TranscriptProjection();
    transcript?.apply(event);
    if (this.#maxContent !== undefined) {
      setCaptured(
        span,
        ATTR.inputMessages,
        capMessages(event.messages.map(conventionMessage), this.#maxContent),
      );
    }
    this.#runs.set(event.runId, {
      runId: event.runId,
      span,
      context: trace.setSpan(parent, span),
      provider: this.#providerName(event.provider),
      model: event.model,
      server: serverAttributes(this.#endpoints[event.provider]),
      tools: new Map(),
      decisions: new Map(),
      lastEnd: event.time,
      lastSeq: event.seq,
      ...(transcript ? { transcript } : {}),
    });
  }

  /** A run whose start this tracer did not see (attached mid-run): traced from here on. */
  #startLate(event: RunEvent): RunState {
    const parent = this.#parentOf(event);
    const span = this.#tracer.startSpan(
      event.agentName ? `${OPERATION.invokeAgent} ${event.agentName}` : OPERATION.invokeAgent,
      {
        kind: SpanKind.INTERNAL,
        startTime: millisToHrTime(event.time),
        attributes: {
          [ATTR.operationName]: OPERATION.invokeAgent,
          [ATTR.runId]: event.runId,
          ...identityAttributes(event),
        },
      },
      parent,
    );
    const run: RunState = {
      runId: event.runId,
      span,
      context: trace.setSpan(parent, span),
      provider: "unknown",
      model: "unknown",
      server: {},
      tools: new Map(),
      decisions: new Map(),
      lastEnd: event.time,
      lastSeq: event.seq,
    };
    this.#runs.set(event.runId, run);
    return run;
  }

  /** A subagent's run nests under the call that started it; a top-level run under the configured parent. */
  #parentOf(event: RunEvent): Context {
    if (event.parentRunId) {
      const parentRun = this.#runs.get(event.parentRunId);
      const call = event.parentToolCallId ? parentRun?.tools.get(event.parentToolCallId) : undefined;
      if (call) return trace.setSpan(parentRun?.context ?? context.active(), call.span);
      if (parentRun) return parentRun.context;
    }
    return this.#parent ?? context.active();
  }

  #response(run: RunState, event: ModelResponseEvent): void {
    const chat = run.chat;
    if (!chat) return;
    const span = chat.span;
    span.setAttributes({
      [ATTR.finishReasons]: [finishReason(event.stopReason)],
      ...usageAttributes(event.usage),
      ...(event.message.model ? { [ATTR.responseModel]: event.message.model } : {}),
      ...(chat.firstChunkAt === undefined
        ? {}
        : { [ATTR.timeToFirstChunk]: Math.max(0, chat.firstChunkAt - chat.start) / 1000 }),
    });
    if (this.#maxContent !== undefined) {
      setCaptured(
        span,
        ATTR.outputMessages,
        capMessages([outputMessage(event.message, event.stopReason)], this.#maxContent),
      );
    }
    const end = chat.start + Math.max(0, event.durationMs);
    span.end(millisToHrTime(end));
    run.lastEnd = Math.max(run.lastEnd, end, event.time);
    run.chat = undefined;
  }

  #toolRequested(run: RunState, event: ToolCallRequestedEvent): void {
    const call = event.toolCall;
    const open = run.tools.get(call.id);
    if (open) {
      if (event.repairs.length) open.span.setAttribute(ATTR.toolRepairs, [...event.repairs]);
      return;
    }
    const decided = run.decisions.get(call.id);
    const tool = this.#openTool(run, call, Math.min(event.time, decided?.time ?? event.time), event.repairs);
    if (decided) {
      run.decisions.delete(call.id);
      tool.approval = true;
      this.#decide(tool, decided);
    }
  }

  #openTool(run: RunState, call: ToolCallPart, time: number, repairs: readonly string[]): ToolSpan {
    const existing = run.tools.get(call.id);
    if (existing) return existing;
    const attributes = toolAttributes(call, this.#mcp(call.name), repairs);
    // The same call's span from before the run paused for its approval, if there was one.
    const pausedKey = `${run.runId}/${call.id}`;
    const paused = this.#pausedCalls.get(pausedKey);
    this.#pausedCalls.delete(pausedKey);
    const span = this.#tracer.startSpan(
      `${OPERATION.executeTool} ${call.name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: millisToHrTime(time),
        attributes,
        ...(paused ? { links: [{ context: paused }] } : {}),
      },
      run.context,
    );
    if (this.#maxContent !== undefined) {
      setCaptured(span, ATTR.toolCallArguments, capJsonText(call.arguments, this.#maxContent));
    }
    const tool: ToolSpan = { span, start: time, approval: false };
    run.tools.set(call.id, tool);
    return tool;
  }

  #approvalResolved(run: RunState, event: ApprovalResolvedEvent): void {
    const tool = run.tools.get(event.toolCallId);
    if (tool) this.#decide(tool, event);
    else run.decisions.set(event.toolCallId, event);
  }

  #decide(tool: ToolSpan, event: ApprovalResolvedEvent): void {
    const reason = event.decision.reason === undefined ? undefined : truncateText(event.decision.reason, 500);
    tool.span.addEvent(
      EVENT.approvalResolved,
      {
        [ATTR.approvalApproved]: event.decision.approved,
        ...(reason ? { [ATTR.approvalReason]: reason } : {}),
      },
      millisToHrTime(event.time),
    );
    tool.span.setAttribute(ATTR.approvalApproved, event.decision.approved);
  }

  #toolCompleted(run: RunState, event: ToolCallCompletedEvent): void {
    const result = event.result;
    const tool = run.tools.get(result.toolCallId);
    if (!tool) return;
    const span = tool.span;
    const exchange = mcpExchangeAttributes(result.details);
    if (exchange) span.setAttributes({ ...exchange, [ATTR.toolType]: "extension" });
    if (this.#maxContent !== undefined) {
      const text = toolResultText(result);
      const captured = {
        text: truncateText(text, this.#maxContent),
        truncated: text.length > this.#maxContent,
      };
      setCaptured(span, ATTR.toolCallResult, captured);
    }
    if (result.isError) {
      const kind = result.errorKind ?? "ToolError";
      const message =
        this.#maxContent === undefined
          ? kind
          : truncateText(toolResultText(result), Math.min(1000, this.#maxContent));
      markError(span, kind, message);
    }
    // durationMs counts execution only; a span that began at an approval also covers the wait.
    const executed = tool.start + Math.max(0, event.durationMs);
    const end = tool.approval ? Math.max(executed, event.time) : executed;
    span.end(millisToHrTime(end));
    run.lastEnd = Math.max(run.lastEnd, end, event.time);
    run.tools.delete(result.toolCallId);
  }

  #finish(run: RunState, event: RunCompletedEvent | RunFailedEvent): void {
    const span = run.span;
    span.setAttributes({
      [ATTR.stopReason]: event.stopReason,
      ...usageAttributes(event.usage.tokens),
      ...runCounterAttributes(event.usage),
    });
    if (event.type === "run_completed") {
      if (this.#maxContent !== undefined) {
        // A structured answer given through a final_result call has no text: its value stands in.
        const text = event.finalText || (event.output === undefined ? "" : JSON.stringify(event.output));
        const output = [
          { role: "assistant", parts: [{ type: "text", content: text }], finish_reason: "stop" },
        ];
        setCaptured(span, ATTR.outputMessages, capMessages(output, this.#maxContent));
      }
      this.#endChildren(run, "no_result", event.time);
    } else if (event.stopReason === "approval_required") {
      // A pause, not a failure: the run resumes later under the same id, and its new span links here.
      for (const [id, tool] of run.tools) {
        remember(this.#pausedCalls, `${event.runId}/${id}`, tool.span.spanContext());
        tool.span.setAttribute(ATTR.approvalPending, true);
        tool.span.end(millisToHrTime(Math.max(event.time, tool.start)));
        run.tools.delete(id);
      }
      this.#endChildren(run, "approval_required", event.time);
      remember(this.#paused, event.runId, span.spanContext());
    } else {
      // The model request in flight failed with the run: its error type is the model's error code.
      const errorType = event.error.modelError?.code ?? event.error.code;
      this.#endChat(run, errorType, event.error.message, event.time);
      this.#endChildren(run, event.stopReason, event.time);
      markError(span, event.stopReason, event.error.message);
    }
    span.end(millisToHrTime(Math.max(event.time, run.lastEnd)));
    this.#runs.delete(event.runId);
    remember(this.#ended, event.runId, event.seq);
  }

  #finishOpen(runId: string, run: RunState, reason: string, time: number): void {
    this.#endChildren(run, reason, time);
    markError(run.span, reason, `the run ended without a terminal event (${reason})`);
    run.span.end(millisToHrTime(Math.max(time, run.lastEnd)));
    this.#runs.delete(runId);
  }

  /** Ends the run's open model request and tool calls; a run's terminal event must leave none open. */
  #endChildren(run: RunState, reason: string, time: number): void {
    this.#endChat(run, reason, `the model request had no response when the run ended (${reason})`, time);
    for (const [id, tool] of run.tools) {
      markError(tool.span, reason, `the call had no result when the run ended (${reason})`);
      tool.span.end(millisToHrTime(Math.max(time, tool.start)));
      run.tools.delete(id);
    }
    run.lastEnd = Math.max(run.lastEnd, time);
  }

  #endChat(run: RunState, errorType: string, message: string, time: number): void {
    const chat = run.chat;
    if (!chat) return;
    markError(chat.span, errorType, message);
    chat.span.end(millisToHrTime(Math.max(time, chat.start)));
    run.chat = undefined;
  }

  #capTranscript(messages: readonly Message[], max: number): Captured {
    const encoded = messages.map((message) => {
      let text = this.#encoded.get(message);
      if (text === undefined) {
        text = JSON.stringify(conventionMessage(message));
        this.#encoded.set(message, text);
      }
      return text;
    });
    return capEncodedMessages(encoded, max, (start) => messages.slice(start).map(conventionMessage));
  }
}

/** Adds to a bounded, oldest-first collection. */
function remember<K, V>(collection: Map<K, V>, key: K, value: V): void {
  collection.delete(key);
  collection.set(key, value);
  if (collection.size > MAX_REMEMBERED) {
    const oldest = collection.keys().next();
    if (!oldest.done) collection.delete(oldest.value);
  }
}
