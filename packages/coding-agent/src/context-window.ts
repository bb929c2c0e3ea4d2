// The model's context window, which sets when compaction starts: the `contextWindow` setting when given
// (a local model, a proxy's alias), else what the provider package's model table says (`model.info`),
// else a modest default, so compaction starts early rather than late.
import type { Model } from "@bridle/core";

/** What a model is assumed to hold when nothing says otherwise. */
export const UNKNOWN_WINDOW = 128_000;

export interface WindowChoice {
  readonly tokens: number;
  readonly source: "setting" | "model" | "default";
}

export function contextWindowOf(model: Model, setting: number | undefined): WindowChoice {
  if (setting !== undefined) return { tokens: setting, source: "setting" };
  const known = model.info?.contextWindow;
  if (known !== undefined && Number.isInteger(known) && known > 0) return { tokens: known, source: "model" };
  return { tokens: UNKNOWN_WINDOW, source: "default" };
}
