import { type ModelTable, modelTableFromModelsDev } from "@bridle/provider-kit";
import pinned from "./models-dev.json" with { type: "json" };

/**
 * OpenAI models by exact name (a dated snapshot such as gpt-4o-2024-08-06 has its own row when models.dev
 * lists one, else finds its alias's), built from the pinned, dated copy of models.dev's OpenAI rows in
 * `models-dev.json` (its `commit` and `date` say which; `pin-models-dev.ts` in @bridle/provider-kit
 * refreshes it). Prices are the standard tier, US dollars per million tokens; each row's `checked` is the
 * copy's day. A model missing here has no `info` and no `cost()`, and its requests carry a `model_unknown`
 * warning: add it with the `models` option rather than have it priced as a neighbour.
 */
export const openaiModels: ModelTable = modelTableFromModelsDev(pinned);
