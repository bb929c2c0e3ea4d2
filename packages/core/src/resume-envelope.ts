import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { ApprovalDecisions } from "./approvals.js";
import type { ApprovalDecision } from "./approver.js";
import { BridleError } from "./errors.js";
import { type AssistantMessage, type Message, type ToolCallPart, toolCallsOf } from "./messages.js";
import type { ToolSchema } from "./model.js";
import type { RunUsage } from "./usage.js";

export const APPROVAL_ENVELOPE_KIND = "bridle.approval_pause";
export const APPROVAL_ENVELOPE_VERSION = 1;

/**
 * Everything needed to pick a paused run up again, in this process or another: plain JSON, versioned,
 * and sealed with an HMAC over its canonical form. Store it as it is; an edited envelope is refused.
 * It holds the whole transcript (reasoning blobs included), so treat it as sensitive.
 */
export interface ApprovalEnvelope {
  readonly kind: typeof APPROVAL_ENVELOPE_KIND;
  readonly version: typeof APPROVAL_ENVELOPE_VERSION;
  readonly run: {
    readonly runId: string;
    readonly sessionId?: string;
    readonly parentRunId?: string;
    readonly parentToolCallId?: string;
    readonly agentName?: string;
    /** The `seq` the resumed stream starts from: the logical run's sequence goes on. */
    readonly nextSeq: number;
    readonly historyLength: number;
  };
  /** Which model paused (diagnostics only: a run may resume on another provider). */
  readonly origin: { readonly provider: string; readonly model: string };
  /** The transcript, ending with the assistant turn whose batch is paused. */
  readonly messages: readonly Message[];
  /** The paused batch's call ids, in the model's order. */
  readonly batch: readonly string[];
  /** Ids that need a decision to resume. */
  readonly pending: readonly string[];
  /** Decisions the approver already made for calls of this batch. */
  readonly decided: ApprovalDecisions;
  /** Accounting so far; the paused batch is already counted in `toolCalls`. */
  readonly usage: RunUsage;
  readonly warnings: readonly string[];
  /** Digest of the tool names and schemas the run was using. */
  readonly toolset: string;
  /** "hmac-sha256:<hex>": the harness's approval secret over the canonical form of the other fields. */
  readonly integrity: string;
}

const decisionSchema = z.object({ approved: z.boolean(), reason: z.string().optional() }).strict();
const usageSchema = z
  .object({
    modelRequests: z.number().int().nonnegative(),
    toolCalls: z.number().int().nonnegative(),
    cancelledToolCalls: z.number().int().nonnegative(),
    toolRetries: z.record(z.string(), z.number().int().nonnegative()),
    outputRetries: z.number().int().nonnegative().optional(),
    tokens: z
      .object({
        inputTokens: z.number().nonnegative(),
        outputTokens: z.number().nonnegative(),
        cacheReadTokens: z.number().nonnegative(),
        cacheWriteTokens: z.number().nonnegative(),
        reasoningTokens: z.number().nonnegative(),
      })
      .strict(),
  })
  .strict();
const messageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
});

const envelopeSchema = z
  .object({
    kind: z.literal(APPROVAL_ENVELOPE_KIND),
    version: z.literal(APPROVAL_ENVELOPE_VERSION),
    run: z
      .object({
        runId: z.string().min(1),
        sessionId: z.string().optional(),
        parentRunId: z.string().optional(),
        parentToolCallId: z.string().optional(),
        agentName: z.string().optional(),
        nextSeq: z.number().int().nonnegative(),
        historyLength: z.number().int().nonnegative(),
      })
      .strict(),
    origin: z.object({ provider: z.string(), model: z.string() }).strict(),
    messages: z.array(messageSchema).min(1),
    batch: z.array(z.string().min(1)).min(1),
    pending: z.array(z.string().min(1)).min(1),
    decided: z.record(z.string(), decisionSchema),
    usage: usageSchema,
    warnings: z.array(z.string()),
    toolset: z.string(),
    integrity: z.string(),
  })
  .strict();

/** A paused run, checked and ready to resume. */
export interface OpenedEnvelope {
  readonly envelope: ApprovalEnvelope;
  /** The batch's calls, in the model's order. */
  readonly calls: readonly ToolCallPart[];
  /** Every call's decision: the approver's earlier ones, then the ones given now. */
  readonly decisions: ReadonlyMap<string, { readonly decision: ApprovalDecision; readonly byHuman: boolean }>;
}

/** JSON with object keys sorted, so equal content always gives the same text (and digest). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  // No prototype: a "__proto__" key (JSON.parse makes it an own key) is then kept as data and sealed,
  // instead of silently setting the prototype and dropping out of the sealed text.
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) out[key] = sortKeys(field);
  }
  return out;
}

/** A digest of the tools a run offers: names, descriptions and schemas, in name order. */
export function toolsetDigest(schemas: readonly ToolSchema[]): string {
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return `sha256:${createHash("sha256").update(canonicalJson(sorted)).digest("hex")}`;
}

const SEAL_PREFIX = "hmac-sha256:";

/** An HMAC over the canonical form: without the key, nobody can produce a seal this harness accepts. */
function seal(content: unknown, secret: string): string {
  if (typeof secret !== "string" || secret.length === 0) {
    throw new BridleError("invalid_config", "sealing an approval envelope needs a non-empty secret");
  }
  return `${SEAL_PREFIX}${createHmac("sha256", secret).update(canonicalJson(content)).digest("hex")}`;
}

/**
 * Builds and seals an envelope with `secret` (HMAC-SHA256). The content goes through JSON, so what is
 * sealed is what is stored.
 */
export function sealEnvelope(
  content: Omit<ApprovalEnvelope, "integrity" | "kind" | "version">,
  secret: string,
): ApprovalEnvelope {
  const body = JSON.parse(
    JSON.stringify({ kind: APPROVAL_ENVELOPE_KIND, version: APPROVAL_ENVELOPE_VERSION, ...content }),
  ) as Omit<ApprovalEnvelope, "integrity">;
  return { ...body, integrity: seal(body, secret) };
}

/**
 * Checks an envelope (as parsed JSON, or its text) and the decisions given for it. Throws a BridleError
 * with a stable code, before anything runs: `envelope_invalid` (not an envelope, or inconsistent),
 * `envelope_version` (a version this build does not read), `envelope_tampered` (the seal does not
 * match, or is not keyed), `envelope_tools_changed` (the harness offers different tools) and `approval_decisions_mismatch`
 * (decisions do not cover exactly the pending calls).
 */
export function openEnvelope(
  raw: unknown,
  decisions: ApprovalDecisions,
  options: { readonly toolset: string; readonly secret: string },
): OpenedEnvelope {
  let input = raw;
  if (typeof raw === "string") {
    try {
      input = JSON.parse(raw);
    } catch (error) {
      throw new BridleError(
        "envelope_invalid",
        `the resume envelope is not JSON: ${(error as Error).message}`,
      );
    }
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new BridleError("envelope_invalid", "the resume envelope must be a JSON object");
  }
  const record = input as Record<string, unknown>;
  if (record.kind !== APPROVAL_ENVELOPE_KIND) {
    throw new BridleError(
      "envelope_invalid",
      `not an approval envelope (kind ${JSON.stringify(record.kind)}, expected "${APPROVAL_ENVELOPE_KIND}")`,
    );
  }
  if (record.version !== APPROVAL_ENVELOPE_VERSION) {
    throw new BridleError(
      "envelope_version",
      `unknown approval envelope version ${JSON.stringify(record.version)}; this build reads version ${APPROVAL_ENVELOPE_VERSION}`,
    );
  }
  const parsed = envelopeSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join(".") || "(envelope)"}: ${issue.message}`);
    throw new BridleError("envelope_invalid", `the resume envelope is malformed: ${problems.join("; ")}`);
  }
  const envelope = parsed.data as unknown as ApprovalEnvelope;
  const integrity = envelope.integrity;
  if (!integrity.startsWith(SEAL_PREFIX)) {
    // An unkeyed digest ("sha256:…", what older builds wrote without a secret) is recomputable by anyone
    // who edits the envelope, so it proves nothing: refused, whatever else the envelope holds.
    throw new BridleError(
      "envelope_tampered",
      "the resume envelope is not sealed with a key (only hmac-sha256 seals are accepted); pause the run again to get a keyed envelope",
    );
  }
  // The seal is checked over the input as given, not over what the schema let through.
  const { integrity: _sealed, ...body } = record;
  if (!sameText(seal(body, options.secret), integrity)) {
    throw new BridleError(
      "envelope_tampered",
      "the resume envelope's content does not match its seal (it was edited, corrupted, or sealed with another key)",
    );
  }
  if (envelope.toolset !== options.toolset) {
    throw new BridleError(
      "envelope_tools_changed",
      "the harness offers different tools (names, descriptions or schemas) than the run that paused; resume it with the same tool set",
    );
  }
  const calls = batchCalls(envelope);
  const batchIds = new Set(envelope.batch);
  const pendingIds = new Set(envelope.pending);
  for (const id of [...envelope.pending, ...Object.keys(envelope.decided)]) {
    if (!batchIds.has(id)) {
      throw new BridleError("envelope_invalid", `call ${id} is not part of the paused batch`);
    }
  }
  for (const id of Object.keys(envelope.decided)) {
    if (pendingIds.has(id))
      throw new BridleError("envelope_invalid", `call ${id} is both pending and decided`);
  }
  checkDecisions(envelope.pending, decisions);
  const merged = new Map<string, { decision: ApprovalDecision; byHuman: boolean }>();
  for (const [id, decision] of Object.entries(envelope.decided)) merged.set(id, { decision, byHuman: false });
  for (const id of envelope.pending) {
    const given = decisions[id] as ApprovalDecision;
    merged.set(id, {
      decision: given.reason === undefined ? { approved: given.approved } : { ...given },
      byHuman: true,
    });
  }
  return { envelope, calls, decisions: merged };
}

/**
 * The paused calls, from the transcript's last assistant turn. Only results of that turn's other calls
 * (the harness's own final_result) may follow it, and the batch must be exactly its unanswered calls.
 */
function batchCalls(envelope: ApprovalEnvelope): ToolCallPart[] {
  const { messages } = envelope;
  let index = messages.length - 1;
  while (index >= 0 && messages[index]?.role === "tool") index--;
  const turn = messages[index];
  if (turn?.role !== "assistant") {
    throw new BridleError(
      "envelope_invalid",
      "the resume envelope's transcript does not end with the paused turn",
    );
  }
  const answered = new Set(
    messages.slice(index + 1).map((message) => (message.role === "tool" ? message.toolCallId : "")),
  );
  const calls = toolCallsOf(turn as AssistantMessage).filter((call) => !answered.has(call.id));
  const ids = calls.map((call) => call.id);
  if (ids.length !== envelope.batch.length || ids.some((id, i) => id !== envelope.batch[i])) {
    throw new BridleError(
      "envelope_invalid",
      "the paused batch does not match the open calls of the last turn",
    );
  }
  return calls;
}

function checkDecisions(pending: readonly string[], decisions: ApprovalDecisions): void {
  if (decisions === null || typeof decisions !== "object") {
    throw new BridleError("approval_decisions_mismatch", "decisions must be an object keyed by tool call id");
  }
  const given = Object.keys(decisions);
  const missing = pending.filter((id) => !Object.hasOwn(decisions, id));
  const extra = given.filter((id) => !pending.includes(id));
  if (missing.length > 0 || extra.length > 0) {
    const parts = [
      missing.length > 0 ? `missing decisions for ${missing.join(", ")}` : "",
      extra.length > 0 ? `decisions for calls that are not pending: ${extra.join(", ")}` : "",
    ].filter(Boolean);
    throw new BridleError(
      "approval_decisions_mismatch",
      `decisions must cover exactly the pending calls (${pending.join(", ")}): ${parts.join("; ")}`,
    );
  }
  for (const id of given) {
    const result = decisionSchema.safeParse(decisions[id]);
    if (!result.success) {
      throw new BridleError(
        "approval_decisions_mismatch",
        `the decision for ${id} must be { approved: boolean, reason?: string }`,
      );
    }
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
