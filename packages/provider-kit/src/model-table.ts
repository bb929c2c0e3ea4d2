import type { ModelInfo } from "@bridle/core";

/** A provider package's model table: model name to what is known about it. */
export type ModelTable = Readonly<Record<string, ModelInfo>>;

// A dated snapshot names the same model as its alias (claude-haiku-4-5-20251001, gpt-4o-2024-08-06), and
// "-latest" points at it; anything else is another model, however alike the name.
const SNAPSHOT_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The row for `model`: its exact name, the name without a date-snapshot suffix, or else the one dated
 * snapshot of that alias (claude-3-7-sonnet finds claude-3-7-sonnet-20250219; an alias with two snapshots
 * finds none). Never a neighbour by prefix: claude-opus-4-6 does not get claude-opus-4's row.
 */
export function modelInfoOf(table: ModelTable, model: string): ModelInfo | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const alias = model.replace(SNAPSHOT_SUFFIX, "");
  if (alias !== model && Object.hasOwn(table, alias)) return table[alias];
  const snapshots = Object.keys(table).filter(
    (name) => name !== alias && name.replace(SNAPSHOT_SUFFIX, "") === alias,
  );
  return snapshots.length === 1 && snapshots[0] !== undefined ? table[snapshots[0]] : undefined;
}
