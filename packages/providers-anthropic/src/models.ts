import { type ModelTable, modelTableFromModelsDev } from "@bridle/provider-kit";
import pinned from "./models-dev.json" with { type: "json" };

/**
 * Anthropic models by exact name (a dated snapshot such as claude-haiku-4-5-20251001 finds its alias's
 * row, and an alias its one dated snapshot), built from the pinned, dated copy of models.dev's Anthropic
 * rows in `models-dev.json` (its `commit` and `date` say which; `pin-models-dev.ts` in
 * @bridle/provider-kit refreshes it). US dollars per million tokens, cache writes at the 5-minute rate;
 * each row's `checked` is the copy's day. The capabilities are the model's: this adapter does not send a
 * native output schema yet, so `info` offers no structured output whatever the row says. A model missing
 * here has no `info` and no `cost()`, and its requests carry a `model_unknown` warning: add it with the
 * `models` option rather than have it priced as a neighbour.
 */
export const anthropicModels: ModelTable = modelTableFromModelsDev(pinned);
