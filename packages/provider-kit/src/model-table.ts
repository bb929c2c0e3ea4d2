import type { ModelInfo } from "@bridle/core";

/** A provider package's model table: model name to what is known about it. */
export type ModelTable = Readonly<Record<string, ModelInfo>>;

// A dated snapshot names the same model as its alias (claude-haiku-4-5-20251001, gpt-4o-2024-08-06), and
// "-latest" points at it; anything else is another model, however alike the name.
const SNAPSHOT_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The row for `model`: its exact name, or the name without a date-snapshot suffix. Never a neighbour by
 * prefix: claude-opus-4-6 does not get claude-opus-4's row, it gets none (and its adapter says so).
 */
export function modelInfoOf(table: ModelTable, model: string): ModelInfo | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const alias = model.replace(SNAPSHOT_SUFFIX, "");
  return alias !== model && Object.hasOwn(table, alias) ? table[alias] : undefined;
}
