// The model's context window, which sets when compaction starts: the `contextWindow` setting, else the
// model's own row (`model.info`, from its provider package's table), else a cautious guess by model family
// for a model the provider table does not know (a local model, a proxy's alias, a newer release).
import type { Model } from "@bridle/core";

/** Windows in tokens by model-name prefix, longest prefix first; checked 2026-11 against the vendors' pages. */
const WINDOWS: readonly (readonly [prefix: string, tokens: number])[] = [
  ["gpt-4.1", 1_047_576],
  ["gpt-5", 400_000],
  ["gpt-4o", 128_000],
  ["o4", 200_000],
  ["o3", 200_000],
  ["o1", 200_000],
  ["codex", 400_000],
  ["claude-", 200_000],
];

/** What a model is assumed to hold when nothing says otherwise: small, so compaction starts early rather than late. */
export const UNKNOWN_WINDOW = 128_000;

export interface WindowChoice {
  readonly tokens: number;
  readonly source: "setting" | "model" | "table" | "default";
}

export function contextWindowOf(model: Model, setting: number | undefined): WindowChoice {
  if (setting !== undefined) return { tokens: setting, source: "setting" };
  const carried = model.info?.contextWindow;
  if (carried !== undefined && Number.isInteger(carried) && carried > 0) {
    return { tokens: carried, source: "model" };
  }
  // A router's provider prefix (openai/gpt-5) is looked through.
  const name = model.model.toLowerCase().replace(/^[^/]*\//, "");
  const row = WINDOWS.find(([prefix]) => name.startsWith(prefix));
  return row ? { tokens: row[1], source: "table" } : { tokens: UNKNOWN_WINDOW, source: "default" };
}
