// What the viewer needs from the CLI's own packages: each turn's price from the providers' model tables,
// and the coding overlay's evidence handoff for sessions it recorded. Shared by `bridle sessions export
// --html` and `bridle view`.
import type { RunEvent, Usage } from "@bridle/core";
import type { ProjectionOptions } from "@bridle/viewer";

export async function viewerOptions(): Promise<ProjectionOptions> {
  const [{ costOf, modelInfoOf }, { openaiModels }, { anthropicModels }, coding] = await Promise.all([
    import("@bridle/provider-kit"),
    import("@bridle/providers-openai"),
    import("@bridle/providers-anthropic"),
    import("@bridle/coding"),
  ]);
  return {
    cost: (model: string, usage: Usage) => {
      const price = (modelInfoOf(openaiModels, model) ?? modelInfoOf(anthropicModels, model))?.price;
      return price ? costOf(usage, price) : undefined;
    },
    handoff: (events: readonly RunEvent[]) =>
      events.some((event) => event.type === "fact" && event.kind.startsWith("coding."))
        ? coding.formatHandoff(coding.buildEvidence(events), coding.handoffOutcome(events))
        : undefined,
  };
}
