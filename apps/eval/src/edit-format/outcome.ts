// What the edit tools did with a task's calls, beyond pass or fail: whether a call was applied and left
// the file wrong (silent corruption: the model was told it worked), and whether each refusal points at
// the place the fix goes, so the model can retry from the refusal alone.
import { type ToolResultMessage, textOf } from "@bridle/core";
import { lineTag } from "@bridle/tools-edit-hashline";
import type { EditFormatName } from "./edits.js";
import type { EditTask } from "./tasks.js";

export interface EditOutcome {
  /** 1 when an edit call was answered as applied and the file is not the original afterwards. */
  readonly silentCorruption: number;
  readonly refusals: number;
  /** Refusals that name neither the target line (by number, text or current tag) nor its neighbour. */
  readonly nonActionableRefusals: number;
}

const EDIT_TOOLS = new Set(["edit_file", "apply_patch", "write_file"]);

/**
 * A refusal is actionable when it names where the fix goes in the file as the model last read it: the
 * target line (the mutated line, or either neighbour of a deleted one) by its number, its text or, in
 * hashline, its current tag. A refusal that only says "not found" or "unknown tag" leaves the model to guess.
 */
export function editOutcome(
  task: EditTask,
  format: EditFormatName,
  results: readonly ToolResultMessage[],
  pass: boolean,
): EditOutcome {
  const edits = results.filter((m) => EDIT_TOOLS.has(m.toolName));
  const refused = edits.filter((m) => m.isError);
  const applied = edits.some((m) => !m.isError);
  const targets = targetLines(task);
  const lines = task.broken.split("\n");
  const actionable = (text: string) => {
    const named = namedLines(text);
    return targets.some((n) => {
      const line = lines[n - 1] ?? "";
      if (named.has(n)) return true;
      if (line.trim().length >= 4 && text.includes(line.trim())) return true;
      return format === "hashline" && text.includes(lineTag(n, line));
    });
  };
  return {
    silentCorruption: applied && !pass ? 1 : 0,
    refusals: refused.length,
    nonActionableRefusals: refused.filter((m) => !actionable(textOf(m.content))).length,
  };
}

/** Every line number a text names: "line 7", "lines 3-9", "lines 4, 12, 30", or a numbered row of lines. */
function namedLines(text: string): Set<number> {
  const out = new Set<number>();
  for (const match of text.matchAll(/\blines? (\d+(?:(?:-|, | and | or )\d+)*)/g)) {
    for (const part of (match[1] as string).split(/, | and | or /)) {
      const [from, to = from] = part.split("-").map(Number) as [number, number?];
      for (let n = from; n <= (to as number) && n - from < 200; n++) out.add(n);
    }
  }
  for (const match of text.matchAll(/^\s*(\d+)(?:\t| [0-9a-f]{8} \|)/gm)) out.add(Number(match[1]));
  return out;
}

/** 1-based lines of the broken file where the fix goes. */
function targetLines(task: EditTask): number[] {
  const { line, mutated } = task.mutation;
  return mutated === undefined ? [line, line + 1] : [line + 1];
}
