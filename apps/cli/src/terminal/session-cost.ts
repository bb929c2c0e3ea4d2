// `/cost`: what the session has used so far, from its stored record, so turns of earlier processes (a
// resumed session) and of a fork's parent count too.
import type { SessionStore, Usage } from "@bridle/core";
import { usageText } from "./usage-text.js";

export async function sessionCostLine(
  store: SessionStore,
  sessionId: string,
  cost: (usage: Usage) => number | undefined,
): Promise<string> {
  const total = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let requests = 0;
  let dollars = 0;
  let priced = true;
  if (await store.get(sessionId)) {
    for await (const { event } of store.read(sessionId)) {
      if (event.type !== "model_response") continue;
      requests++;
      total.inputTokens += event.usage.inputTokens;
      total.outputTokens += event.usage.outputTokens;
      total.cacheReadTokens += event.usage.cacheReadTokens;
      total.cacheWriteTokens += event.usage.cacheWriteTokens;
      const one = cost(event.usage);
      if (one === undefined) priced = false;
      else dollars += one;
    }
  }
  // Priced at the current model's rates: a session that switched models is an estimate.
  const price =
    requests === 0 ? "" : priced ? ` · $${dollars.toFixed(4)}` : " · cost unknown: no price for this model";
  return `session so far: ${requests} model request${requests === 1 ? "" : "s"} · ${usageText(total)}${price}\n`;
}
