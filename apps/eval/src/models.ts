// The model of a run: a task's script played back by @bridle/testing's ScriptedModel (no key, what CI
// runs), or a real provider chosen as the bridle CLI chooses it (keys from the environment).
import {
  CodingAgentError,
  createModel,
  PROVIDER_NAMES,
  providerNamed,
  settleProvider,
} from "@bridle/coding-agent";
import { estimateMessagesTokens, estimateTextTokens } from "@bridle/core";
import type { CostedModel } from "@bridle/provider-kit";
import { ScriptedModel, type ScriptedTurn } from "@bridle/testing";
import { BridleEvalError } from "./errors.js";
import type { Script } from "./task.js";

/** "scripted" (a task's script, no key) or a provider the recipe knows. */
export type ProviderName = string;
export const PROVIDERS: readonly ProviderName[] = ["scripted", ...PROVIDER_NAMES];

export interface ModelChoice {
  readonly provider: ProviderName;
  /** The provider's model name (ignored for scripted runs). */
  readonly model: string;
  readonly baseUrl?: string;
}

export type { CostedModel };

/** The model a choice runs when none is named: the provider's own default. */
export async function defaultModel(provider: ProviderName): Promise<string> {
  return provider === "scripted" ? "scripted" : (await providerNamed(provider)).defaultModel;
}

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

/**
 * A real provider's model, chosen as the bridle CLI chooses it (the recipe's rules over the providers'
 * descriptors); throws an BridleEvalError naming the missing key before any run starts.
 */
export async function providerModel(choice: ModelChoice, env: NodeJS.ProcessEnv): Promise<CostedModel> {
  if (choice.provider === "scripted")
    throw new BridleEvalError("InvalidArgs", "the scripted model is made per task from its script.json");
  try {
    const settled = await settleProvider(
      { provider: choice.provider, model: choice.model, baseUrl: choice.baseUrl },
      { providerGiven: true, env },
    );
    return await createModel(settled, [], env);
  } catch (error) {
    if (error instanceof CodingAgentError) throw new BridleEvalError("InvalidArgs", error.message);
    throw error;
  }
}
