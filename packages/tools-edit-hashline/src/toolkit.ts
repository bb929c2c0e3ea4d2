import { createEditTool } from "./edit-tool.js";
import { type HashlineOptions, resolveOptions } from "./options.js";
import { createReadTool } from "./read-tool.js";

/**
 * The hashline pair: `read_file` that tags every line and `edit_file` that edits by tag. They carry the
 * same names as the plain filesystem pair so an app offers one pair or the other, and the model never
 * sees two ways to edit. The two share one memory of what each run has read.
 */
export function createHashlineTools(options: HashlineOptions = {}) {
  const resolved = resolveOptions(options);
  return [createReadTool(resolved), createEditTool(resolved)] as const;
}
