// The model of a run: a task's script played back by @bridle/testing's ScriptedModel (no key, what CI
// runs), or a real provider chosen as the bridle CLI chooses it (keys from the environment).
import { estimateMessagesTokens, estimateTextTokens, type Model, type Usage } from "@bridle/core";
import { ScriptedModel, type ScriptedTurn } from "@bridle/testing";
import { BridleEvalError } from "./errors.js";
import type { Script } from "./task.js";

export type ProviderName = "scripted" | "openai" | "openai-chat" | "anthropic";
export const PROVIDERS: readonly ProviderName[] = ["scripted", "openai", "openai-chat", "anthropic"];

export interface ModelChoice {
  readonly provider: ProviderName;
  /** The provider's model name (ignored for scripted runs). */
  readonly model: string;
  readonly baseUrl?: string;
}

export const DEFAULT_MODELS: Readonly<Record<Exclude<ProviderName, "scripted">, string>> = {
  openai: "gpt-5-mini",
  "openai-chat": "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-6",
};

export type CostedModel = Model & { cost?(usage: Usage): number | undefined };

/** Where a script's `{{workspace}}` and `{{outside}}` point in this run (absolute paths). */
export interface ScriptPlaces {
  readonly workspace: string;
  readonly outside: string;
}

/**
 * The script's turns for this run: `{{workspace}}` and `{{outside}}` in tool arguments and text become the
 * run's temporary folders, so a script can name a file outside the workspace by its real path.
 */
export function scriptedTurns(script: Script, places: ScriptPlaces): ScriptedTurn[] {
  const fill = (text: string) =>
    text.replaceAll("{{workspace}}", places.workspace).replaceAll("{{outside}}", places.outside);
  return script.turns.map((turn) => ({
    ...(turn.text !== undefined ? { text: fill(turn.text) } : {}),
    ...(turn.usage ? { usage: turn.usage } : {}),
    ...(turn.delayMs !== undefined ? { delayMs: turn.delayMs } : {}),
    ...(turn.toolCalls
      ? {
          toolCalls: turn.toolCalls.map((call) => ({
            name: call.name,
            arguments:
              typeof call.arguments === "string"
                ? fill(call.arguments)
                : (JSON.parse(fill(JSON.stringify(call.arguments))) as Record<string, unknown>),
          })),
        }
      : {}),
  }));
}

export function scriptedModel(script: Script, places: ScriptPlaces): CostedModel {
  // A script that runs out ends the run with a plain answer rather than an error.
  const turns = scriptedTurns(script, places);
  // The turn is the number of assistant messages so far, not of requests to this instance: a queued run
  // resumed by another worker continues its script where the transcript stands.
  const model = new ScriptedModel(
    (context) => {
      const turn = turns[context.messages.filter((message) => message.role === "assistant").length] ?? {
        text: "(the script has no more turns)",
      };
      // A turn without usage gets core's estimate of what a real model would have been sent and written,
      // so scripted reports still compare tokens per task (the script's own figures win).
      if (turn.usage) return turn;
      const sent =
        estimateMessagesTokens(context.messages) +
        estimateTextTokens(context.system ?? "") +
        estimateTextTokens(JSON.stringify(context.tools));
      const written = estimateTextTokens(`${turn.text ?? ""}${JSON.stringify(turn.toolCalls ?? [])}`);
      return { ...turn, usage: { inputTokens: sent, outputTokens: written } };
    },
    { provider: "scripted", model: "scripted", record: false },
  );
  return Object.assign(model, { cost: () => 0 });
}

/** A real provider's model; throws an BridleEvalError naming the missing key before any run starts. */
export async function providerModel(choice: ModelChoice, env: NodeJS.ProcessEnv): Promise<CostedModel> {
  const has = (name: string) => Boolean(env[name]?.trim());
  const base = choice.baseUrl ? { baseURL: choice.baseUrl } : {};
  switch (choice.provider) {
    case "openai":
    case "openai-chat": {
      if (!choice.baseUrl && !has("OPENAI_API_KEY") && !has("OPENAI_BASE_URL")) {
        throw new BridleEvalError(
          "InvalidArgs",
          `--provider ${choice.provider} needs OPENAI_API_KEY (or --base-url)`,
        );
      }
      const { createOpenAIChatModel, createOpenAIResponsesModel } = await import("@bridle/providers-openai");
      const create = choice.provider === "openai" ? createOpenAIResponsesModel : createOpenAIChatModel;
      return create({ model: choice.model, ...base });
    }
    case "anthropic": {
      if (!choice.baseUrl && !has("ANTHROPIC_API_KEY") && !has("ANTHROPIC_BASE_URL")) {
        throw new BridleEvalError(
          "InvalidArgs",
          "--provider anthropic needs ANTHROPIC_API_KEY (or --base-url)",
        );
      }
      const { createAnthropicModel } = await import("@bridle/providers-anthropic");
      return createAnthropicModel({ model: choice.model, ...base });
    }
    case "scripted":
      throw new BridleEvalError("InvalidArgs", "the scripted model is made per task from its script.json");
  }
}
