// What a session's page (the viewer's HTML, `bridle view`, an eval run's page) needs from the agent's own
// packages: each turn's price from the providers' model tables, and the coding overlay's handoff.
import type { RunEvent, Usage } from "@bridle/core";
import type { ProviderDescriptor } from "@bridle/provider-kit";
import { allProviders } from "./providers.js";

export interface SessionPageOptions {
  /** A turn's price, from the first provider whose table has the model; undefined when none prices it. */
  cost(model: string, usage: Usage): number | undefined;
  /** The evidence handoff, for a session the coding overlay recorded. */
  handoff(events: readonly RunEvent[]): string | undefined;
}

export async function sessionPageOptions(
  extra: readonly ProviderDescriptor[] = [],
): Promise<SessionPageOptions> {
  const [providers, { costOf, modelInfoOf }, coding] = await Promise.all([
    allProviders(extra),
    import("@bridle/provider-kit"),
    import("@bridle/coding"),
  ]);
  return {
    cost: (model, usage) => {
      for (const provider of providers) {
        const price = modelInfoOf(provider.models, model)?.price;
        if (price) return costOf(usage, price);
      }
      return undefined;
    },
    handoff: (events) =>
      events.some((event) => event.type === "fact" && event.kind.startsWith("coding."))
        ? coding.formatHandoff(coding.buildEvidence(events), coding.handoffOutcome(events))
        : undefined,
  };
}
