// One ACP session: a Bridle session in the store, the agent the recipe composed for its folder and
// permission mode, and the turn running in it. A permission mode switch takes effect at the next turn, with
// an agent composed for that mode (the mode shapes the sandbox); plan mode is the agent's own mode switch,
// at once, and the agent leaving it (a plan accepted) is sent to the editor as a mode update.
import { randomUUID } from "node:crypto";
import {
  type AgentContext,
  type ContentBlock,
  RequestError,
  type SessionUpdate,
  type StopReason,
} from "@agentclientprotocol/sdk";
import { contextWindowOf, type SessionMode } from "@bridle/coding-agent";
import { type Message, type QueuedMessage, type RunEvent, type RunResult, sessionSink } from "@bridle/core";
import type { PermissionMode } from "@bridle/tools-shell";
import { type Agent, composeAgent } from "../run/agent.js";
import type { CodingChoice } from "../run/coding.js";
import { TurnCheckpoints } from "../run/rewind.js";
import { openSession } from "../run/session.js";
import type { Settings } from "../settings/config.js";
import { approveEverything } from "../terminal/approvers.js";
import { AcpApprover } from "./approver.js";
import { EditDiffs } from "./diffs.js";
import { promptMessage } from "./prompt-content.js";
import { AcpQuestions } from "./questions.js";
import {
  contextTokens,
  isPlanFact,
  planUpdate,
  replayUpdates,
  toolCallEnded,
  toolCallStarted,
} from "./updates.js";

export type Send = (update: SessionUpdate) => Promise<void>;

export class AcpSession {
  readonly id: string;
  readonly #settings: Settings;
  readonly #coding: CodingChoice;
  readonly #approver: AcpApprover;
  #mode: SessionMode;
  /** The permission mode the agent is composed for (a plan hands over to it). */
  #working: PermissionMode;
  readonly #questions: AcpQuestions;
  /** Where the running turn's updates go: a mode the agent switched to is said there. */
  #send: Send | undefined;
  #agent: { readonly agent: Agent; readonly mode: PermissionMode } | undefined;
  #history: readonly Message[] = [];
  #queued: readonly QueuedMessage[] = [];
  #turn: AbortController | undefined;
  /** The files before and after each turn, for `bridle sessions rewind` (opened at the first prompt). */
  #rewind: TurnCheckpoints | undefined;
  /** Dollars this process has spent in the session, while every turn's price was known. */
  #cost: number | undefined = 0;

  private constructor(
    id: string,
    settings: Settings,
    coding: CodingChoice,
    client: AgentContext,
    forms = false,
  ) {
    this.id = id;
    this.#settings = settings;
    this.#coding = coding;
    this.#mode = settings.permissionMode;
    this.#working = settings.permissionMode;
    this.#approver = new AcpApprover(client, id, settings.cwd);
    this.#questions = new AcpQuestions(client, id, forms);
  }

  get mode(): SessionMode {
    return this.#mode;
  }

  /** session/new: a new Bridle session in the store, recorded as runs go. */
  static async create(
    settings: Settings,
    coding: CodingChoice,
    client: AgentContext,
    forms = false,
  ): Promise<AcpSession> {
    const session = new AcpSession(randomUUID(), settings, coding, client, forms);
    const agent = await session.#current();
    await agent.store.createSession({ id: session.id, title: `ACP session in ${settings.cwd}` });
    return session;
  }

  /** session/load: the stored session's events replayed to the client as updates, then its history kept. */
  static async load(
    id: string,
    settings: Settings,
    coding: CodingChoice,
    client: AgentContext,
    send: Send,
    forms = false,
  ): Promise<AcpSession> {
    const session = new AcpSession(id, settings, coding, client, forms);
    const agent = await session.#current();
    if (!(await agent.store.get(id))) {
      await session.close();
      throw RequestError.resourceNotFound(`bridle session ${id}`);
    }
    for await (const { event } of agent.store.read(id)) {
      for (const update of replayUpdates(event, settings.cwd)) await send(update);
    }
    const opened = await openSession(agent.store, { resume: id });
    session.#history = opened.history;
    session.#queued = opened.queued ?? [];
    return session;
  }

  setMode(mode: SessionMode): void {
    this.#mode = mode;
    if (mode !== "plan") this.#working = mode;
    // Plan, or back from it, on the agent in place; another permission mode composes a new agent.
    if (this.#agent?.mode === this.#working) this.#agent.agent.modes.set(mode);
  }

  cancel(): void {
    this.#turn?.abort();
  }

  /** session/prompt: one run on the session's history, streamed as updates. */
  async prompt(blocks: readonly ContentBlock[], send: Send): Promise<StopReason> {
    if (this.#turn)
      throw RequestError.invalidRequest(undefined, "a prompt is already running in this session");
    const turn = new AbortController();
    this.#turn = turn;
    this.#send = send;
    try {
      const agent = await this.#current();
      // stdout is the protocol: a checkpoint's trouble is said on stderr, the editor's log.
      this.#rewind ??= await TurnCheckpoints.open(this.#settings, agent.store, this.id, (text) =>
        process.stderr.write(text),
      );
      const rewind = this.#rewind;
      await rewind.before(promptTitle(blocks), (await agent.store.get(this.id))?.lastSeq ?? -1);
      try {
        return await this.#run(blocks, agent, turn, send);
      } finally {
        await rewind.after();
      }
    } finally {
      this.#turn = undefined;
    }
  }

  /** One run on the session's history, streamed as updates. */
  async #run(
    blocks: readonly ContentBlock[],
    agent: Agent,
    turn: AbortController,
    send: Send,
  ): Promise<StopReason> {
    const diffs = new EditDiffs(this.#settings.cwd);
    const window = contextWindowOf(agent.model, this.#settings.contextWindow).tokens;
    const stream = agent.harness.stream({
      prompt: promptMessage(blocks),
      history: this.#history,
      sessionId: this.id,
      signal: turn.signal,
      sink: diffs.sink(sessionSink(agent.store, this.id)),
      // Hook scripts' observer (Notification, PostCompact), as bridle run gives it.
      observers: agent.observers,
      ...(this.#queued.length ? { queued: this.#queued } : {}),
    });
    const started = new Set<string>();
    for await (const event of stream) {
      for (const update of await this.#updates(event, agent, diffs, window, started)) await send(update);
    }
    const result = await stream.result;
    this.#history = result.messages;
    this.#queued = result.undelivered ?? [];
    return stopReasonOf(result);
  }

  async close(): Promise<void> {
    this.#turn?.abort();
    const current = this.#agent;
    this.#agent = undefined;
    await current?.agent.close();
  }

  async #updates(
    event: RunEvent,
    agent: Agent,
    diffs: EditDiffs,
    window: number,
    started: Set<string>,
  ): Promise<SessionUpdate[]> {
    // A subagent's own words and calls are its parent call's business: the parent's result carries them.
    if (event.parentRunId !== undefined) return [];
    const cwd = this.#settings.cwd;
    switch (event.type) {
      case "text_delta":
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.delta } }];
      case "reasoning_delta":
        return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.delta } }];
      case "tool_call_requested":
        return [toolCallStarted(event.toolCall, cwd)];
      case "approval_resolved":
        if (!event.decision.approved) return [];
        started.add(event.toolCallId);
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, status: "in_progress" }];
      case "tool_progress":
        if (started.has(event.toolCallId)) return [];
        started.add(event.toolCallId);
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, status: "in_progress" }];
      case "tool_call_completed":
        return [toolCallEnded(event.result, await diffs.after(event.result))];
      case "model_response": {
        const price = agent.cost(event.usage);
        this.#cost = this.#cost === undefined || price === undefined ? undefined : this.#cost + price;
        return [
          {
            sessionUpdate: "usage_update",
            used: contextTokens(event.usage),
            size: window,
            ...(this.#cost !== undefined ? { cost: { amount: this.#cost, currency: "USD" } } : {}),
          },
        ];
      }
      case "fact":
        return isPlanFact(event) ? [planUpdate(event.data)] : [];
      default:
        return [];
    }
  }

  /** The agent for the permission mode in force, composed anew when it changed since the last turn. */
  async #current(): Promise<Agent> {
    if (this.#agent?.mode === this.#working) return this.#agent.agent;
    await this.#agent?.agent.close();
    this.#agent = undefined;
    const mode = this.#working;
    // full-access asks nothing; --yes answers every ask the mode raises (it never widens the mode).
    const approver = this.#settings.yes || mode === "full-access" ? approveEverything : this.#approver;
    const agent = await composeAgent(
      { ...this.#settings, permissionMode: mode },
      approver,
      this.#coding,
      "run",
      {
        switchModes: true,
        questions: this.#questions,
        ...(this.#mode === "plan" ? { startMode: "plan" as const } : {}),
      },
    );
    agent.modes.onChange((next) => {
      if (next === this.#mode) return; // the editor asked for it
      this.#mode = next;
      if (next !== "plan") this.#working = next;
      void this.#send?.({ sessionUpdate: "current_mode_update", currentModeId: next });
    });
    this.#agent = { agent, mode };
    return agent;
  }
}

/** The prompt's text as a checkpoint lists its turn. */
function promptTitle(blocks: readonly ContentBlock[]): string {
  const text = blocks.find((block) => block.type === "text");
  return text?.type === "text" ? text.text : "(no text)";
}

/** A run's end as ACP says it; what ACP has no stop reason for is an error the client shows. */
function stopReasonOf(result: RunResult): StopReason {
  switch (result.stopReason) {
    case "completed":
      return "end_turn";
    case "aborted":
      return "cancelled";
    case "max_tokens":
      return "max_tokens";
    case "max_model_requests":
    case "max_tool_calls":
    case "tool_retries_exceeded":
      return "max_turn_requests";
    default:
      throw new RequestError(-32603, result.error?.message ?? `the run ended: ${result.stopReason}`, {
        stopReason: result.stopReason,
        code: result.error?.code,
      });
  }
}
