// The mistake-injecting scripted model. It knows each task's fix, reads the file, makes the edit, and at a
// set rate makes one of the mistakes real models make while doing so. When the tool answers with an error
// it reacts as a model does: it reads the file again and retries (a retry repeats a mistake at half the
// rate), within a budget of edit attempts; a successful edit ends its turn with a short answer.
import {
  estimateMessagesTokens,
  estimateTextTokens,
  type Message,
  type ToolResultMessage,
  textOf,
} from "@bridle/core";
import { ScriptedModel, type ScriptedTurn, type ScriptRequest } from "@bridle/testing";
import { lineTag } from "@bridle/tools-edit-hashline";
import { type EditFormatName, editCall, type MistakeKind, type SeenLine } from "./edits.js";
import { Random } from "./random.js";
import type { EditTask } from "./tasks.js";

export interface MistakePlan {
  /** The mistake made, when one is made. */
  readonly kind: MistakeKind | undefined;
  /** Chance (0..1) that an edit attempt carries the mistake; a retry carries it at half this rate. */
  readonly rate: number;
  readonly seed: number;
  /** Edit attempts before the model gives up (default 4). */
  readonly maxAttempts?: number;
}

/** What the model did, for the benchmark's figures. */
export interface ModelLog {
  editAttempts: number;
  /** Attempts that carried a mistake. */
  injected: number;
}

/** A model for one task in one format; `log` fills in as it plays. */
export function mistakeModel(
  task: EditTask,
  format: EditFormatName,
  plan: MistakePlan,
): { model: ScriptedModel; log: ModelLog } {
  const log: ModelLog = { editAttempts: 0, injected: 0 };
  const maxAttempts = plan.maxAttempts ?? 4;
  const step = (context: ScriptRequest): ScriptedTurn => {
    const turn = decide(context.messages);
    const input =
      estimateMessagesTokens(context.messages) + estimateTextTokens(JSON.stringify(context.tools));
    const output = estimateTextTokens(JSON.stringify(turn.toolCalls ?? turn.text ?? ""));
    return { ...turn, usage: { inputTokens: input, outputTokens: output } };
  };
  const decide = (messages: readonly Message[]): ScriptedTurn => {
    const last = messages.at(-1);
    if (last?.role !== "tool") return read(task.path, log.editAttempts);
    if (last.toolName === "read_file") {
      if (last.isError)
        return { text: `I could not read ${task.path}: ${textOf(last.content).slice(0, 200)}` };
      if (log.editAttempts >= maxAttempts) return { text: "I could not apply the fix; giving up." };
      return attempt(seenLines(last, format), log.editAttempts);
    }
    if (!last.isError) return { text: `Fixed ${task.path}.` };
    // The edit failed: read the file again before the next attempt, as a careful model does.
    return log.editAttempts >= maxAttempts
      ? { text: "I could not apply the fix; giving up." }
      : read(task.path, log.editAttempts);
  };
  const attempt = (seen: readonly SeenLine[], index: number): ScriptedTurn => {
    const random = Random.for(plan.seed, task.id, format, plan.kind ?? "none", index);
    const rate = index === 0 ? plan.rate : plan.rate / 2;
    const wants = plan.kind !== undefined && random.next() < rate ? plan.kind : undefined;
    const call = editCall(task, format, seen, wants, {
      staleTag: (number, text) => lineTag(number, text),
      inventedTag: () => random.int(0x1_0000_0000).toString(16).padStart(8, "0"),
    });
    log.editAttempts++;
    if (call.mistake) log.injected++;
    return { toolCalls: [{ id: `edit_${index}`, name: call.name, arguments: call.arguments }] };
  };
  return { model: new ScriptedModel(step, { record: false }), log };
}

function read(path: string, index: number): ScriptedTurn {
  return { toolCalls: [{ id: `read_${index}`, name: "read_file", arguments: { path } }] };
}

/** The lines a read showed: `N<tab>text` from tools-fs, `N tag | text` from the hashline read. */
export function seenLines(result: ToolResultMessage, format: EditFormatName): SeenLine[] {
  const out: SeenLine[] = [];
  for (const row of textOf(result.content).split("\n")) {
    if (format === "hashline") {
      const match = /^\s*(\d+) ([0-9a-f]{8}) \| (.*)$/.exec(row);
      if (match) out.push({ number: Number(match[1]), tag: match[2] as string, text: match[3] as string });
    } else {
      const match = /^\s*(\d+)\t(.*)$/.exec(row);
      if (match) out.push({ number: Number(match[1]), text: match[2] as string });
    }
  }
  return out;
}
