import { ToolFailure, type Workspace } from "@bridle/core";
import { suggestPaths } from "./suggest.js";

/** resolveExisting, with close names added when the path does not exist. */
export async function resolveExistingOrSuggest(workspace: Workspace, path: string): Promise<string> {
  try {
    return await workspace.resolveExisting(path);
  } catch (error) {
    if (!(error instanceof ToolFailure) || error.kind !== "NotFound") throw error;
    const suggestions = await suggestPaths(workspace, path).catch(() => []);
    if (suggestions.length === 0) throw error;
    throw new ToolFailure("NotFound", `${error.message}. Did you mean: ${suggestions.join(", ")}?`, {
      details: { path, suggestions },
    });
  }
}

/**
 * A line count with a thousands separator, for messages. Whole numbers are grouped here: the first
 * toLocaleString of a process loads the ICU locale data, tens of milliseconds of every start (the tool
 * descriptions use this).
 */
export function formatCount(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString("en-US");
  return String(value).replace(/\B(?=(\d{3})+$)/g, ",");
}
