import { z } from "zod";
import { BridleError } from "./errors.js";
import { failureText } from "./failure-text.js";
import {
  type AssistantMessage,
  type Message,
  type ToolCallPart,
  type ToolResultMessage,
  textOf,
  toolCallsOf,
  userText,
} from "./messages.js";
import type { ModelOptions, ToolSchema } from "./model.js";
import { objectShape, toolJsonSchema } from "./schema.js";
import { failureResult } from "./tool-call.js";

/**
 * How the model is asked for structured output:
 * - "text": the final answer is the assistant's text, unvalidated;
 * - "native": the provider is asked for JSON-schema output (`ModelOptions.outputSchema`);
 * - "tool": a harness-owned `final_result` tool the model calls once, alone, with the answer;
 * - "prompted": the system prompt carries the JSON Schema and asks for JSON only.
 * In every mode but "text" the answer is validated with the zod schema; an invalid one gets corrective
 * turns until `limits.outputRetries` is used up.
 */
export type OutputMode = "text" | "native" | "tool" | "prompted";

export interface OutputSpec<O = unknown> {
  readonly mode: OutputMode;
  /** Required in every mode but "text", where, when given, it validates the final text itself. */
  readonly schema?: z.ZodType<O>;
  /** Identifies the schema to providers (native mode); default "final_answer". */
  readonly name?: string;
  /** What the answer is; shown in the final_result tool and the native schema. */
  readonly description?: string;
}

export const FINAL_RESULT_TOOL = "final_result";

/** What one model turn means for the run. */
export interface TurnResolution {
  /** Ordinary tool calls to run. */
  readonly calls: readonly ToolCallPart[];
  /** Harness-owned final_result calls and their results: recorded, never counted, never hooked. */
  readonly answered: readonly { readonly call: ToolCallPart; readonly result: ToolResultMessage }[];
  /** Set when the turn carries an accepted final answer. */
  readonly output?: { readonly value: unknown };
  /** Set when the answer was missing or invalid: a corrective turn follows (or the budget is spent). */
  readonly retry?: { readonly problems: readonly string[]; readonly message?: Message };
}

/** One harness's structured-output settings, resolved once. */
export class OutputPlan {
  readonly mode: OutputMode;
  readonly #schema: z.ZodType | undefined;
  /** What final_result's arguments are validated against (non-object answers sit under `value`). */
  readonly #toolSchema: z.ZodType | undefined;
  readonly #wrapped: boolean;
  readonly #name: string;
  readonly #description: string | undefined;
  readonly #configured: boolean;

  constructor(spec: OutputSpec | undefined) {
    this.mode = spec?.mode ?? "text";
    this.#configured = spec !== undefined;
    this.#schema = spec?.schema;
    this.#name = spec?.name ?? "final_answer";
    this.#description = spec?.description;
    if (this.mode !== "text" && !this.#schema) {
      throw new BridleError("invalid_config", `output mode "${this.mode}" needs a schema`);
    }
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(this.#name)) {
      throw new BridleError("invalid_config", `output name "${this.#name}" must match ^[A-Za-z0-9_-]{1,64}$`);
    }
    this.#wrapped = this.#schema !== undefined && objectShape(this.#schema) === undefined;
    this.#toolSchema =
      this.#schema === undefined
        ? undefined
        : this.#wrapped
          ? z.object({ value: this.#schema })
          : this.#schema;
  }

  /** Whether the harness reports `output` at all (only when an output spec was given). */
  get structured(): boolean {
    return this.#configured;
  }

  /** The final_result tool the model sees in tool mode (never among the harness's own tools). */
  toolSchema(): ToolSchema | undefined {
    if (this.mode !== "tool" || !this.#toolSchema) return undefined;
    const what = this.#description ? ` ${this.#description}` : "";
    return {
      name: FINAL_RESULT_TOOL,
      description: `Give your final answer.${what} Call it once, on its own, when the task is done; its arguments are the answer.`,
      inputSchema: toolJsonSchema(this.#toolSchema),
    };
  }

  /** The system prompt, with the schema instructions in prompted mode. */
  system(base: string | undefined): string | undefined {
    if (this.mode !== "prompted" || !this.#schema) return base;
    const schema = JSON.stringify(toolJsonSchema(this.#schema));
    const what = this.#description ? `The answer is ${this.#description}.\n` : "";
    const instructions = `When you give your final answer, reply with only a JSON value matching this JSON Schema: no prose, no code fence.\n${what}${schema}`;
    return base === undefined ? instructions : `${base}\n\n${instructions}`;
  }

  /** Model options, with the output schema in native mode. */
  modelOptions(base: ModelOptions | undefined): ModelOptions | undefined {
    if (this.mode !== "native" || !this.#schema) return base;
    return {
      ...base,
      outputSchema: {
        name: this.#name,
        ...(this.#description ? { description: this.#description } : {}),
        schema: toolJsonSchema(this.#schema),
      },
    };
  }

  /** Decides what a complete assistant turn means. */
  resolve(message: AssistantMessage): TurnResolution {
    const calls = toolCallsOf(message);
    if (this.mode === "tool") return this.#resolveTool(calls);
    if (calls.length > 0) return { calls, answered: [] };
    const text = textOf(message.content);
    if (!this.#schema) return { calls, answered: [], output: { value: text } };
    // Text mode validates the text itself (a length bound, say); the other modes parse JSON first.
    const checked = this.#check(this.#schema, this.mode === "text" ? text : parseJsonAnswer(text));
    if (checked.ok) return { calls, answered: [], output: { value: checked.value } };
    return {
      calls,
      answered: [],
      retry: {
        problems: checked.problems,
        message: userText(
          `[harness] Your final answer was not valid. Problems:\n${checked.problems.map((p) => `- ${p}`).join("\n")}\n${this.mode === "text" ? "Reply again with a corrected answer." : "Reply again with only a JSON value that matches the required schema."}`,
        ),
      },
    };
  }

  #resolveTool(all: readonly ToolCallPart[]): TurnResolution {
    const finals = all.filter((call) => call.name === FINAL_RESULT_TOOL);
    const calls = all.filter((call) => call.name !== FINAL_RESULT_TOOL);
    if (finals.length === 0) {
      if (calls.length > 0) return { calls, answered: [] };
      const problems = [
        `no ${FINAL_RESULT_TOOL} call: the answer must be given by calling ${FINAL_RESULT_TOOL}`,
      ];
      return {
        calls,
        answered: [],
        retry: {
          problems,
          message: userText(
            `[harness] You ended your turn without calling ${FINAL_RESULT_TOOL}. Call ${FINAL_RESULT_TOOL} with your answer.`,
          ),
        },
      };
    }
    if (finals.length > 1 || calls.length > 0) {
      const problem = `${FINAL_RESULT_TOOL} must be called once, on its own, after the other tool calls have returned`;
      return {
        calls,
        answered: finals.map((call) => ({
          call,
          result: failureResult(call, "InvalidInput", failureText("InvalidInput", problem)),
        })),
        retry: { problems: [problem] },
      };
    }
    const call = finals[0] as ToolCallPart;
    let args: unknown;
    try {
      args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch (error) {
      args = new JsonError((error as Error).message);
    }
    const checked = this.#check(this.#toolSchema as z.ZodType, args);
    if (!checked.ok) {
      const text = failureText(
        "InvalidInput",
        `the answer does not match the required schema.\n${checked.problems.map((p) => `- ${p}`).join("\n")}\nCall ${FINAL_RESULT_TOOL} again with a valid answer.`,
      );
      return {
        calls,
        answered: [{ call, result: failureResult(call, "InvalidInput", text) }],
        retry: { problems: checked.problems },
      };
    }
    const value = this.#wrapped ? (checked.value as { value: unknown }).value : checked.value;
    const accepted: ToolResultMessage = {
      role: "tool",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: "Final answer accepted." }],
      isError: false,
    };
    return { calls, answered: [{ call, result: accepted }], output: { value } };
  }

  #check(
    schema: z.ZodType,
    value: unknown,
  ): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problems: string[] } {
    if (value instanceof JsonError)
      return { ok: false, problems: [`the answer is not valid JSON (${value.message})`] };
    const result = schema.safeParse(value);
    if (result.success) return { ok: true, value: result.data };
    const problems = result.error.issues
      .slice(0, 10)
      .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(answer)"}: ${issue.message}`);
    return { ok: false, problems };
  }
}

class JsonError {
  constructor(readonly message: string) {}
}

/** The JSON value in a text answer; a surrounding markdown code fence is tolerated. */
function parseJsonAnswer(text: string): unknown {
  let body = text.trim();
  const fence = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/.exec(body);
  if (fence) body = (fence[1] as string).trim();
  if (body === "") return new JsonError("the answer is empty");
  try {
    return JSON.parse(body);
  } catch (error) {
    return new JsonError((error as Error).message);
  }
}
