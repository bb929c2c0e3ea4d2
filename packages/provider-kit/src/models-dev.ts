import type { ModelInfo } from "@bridle/core";
import type { ModelTable } from "./model-table.js";

/** One model as models.dev describes it, in its own field names (the fields a model table needs). */
export interface ModelsDevRow {
  /** Takes files or images as input. */
  readonly attachment: boolean;
  /** Thinks before answering (an effort or budget setting is honoured). */
  readonly reasoning: boolean;
  /** Calls tools. */
  readonly tool_call: boolean;
  /** Answers in a JSON schema natively; absent when models.dev does not say. */
  readonly structured_output?: boolean;
  /** US dollars per million tokens; absent for a model without a list price. */
  readonly cost?: {
    readonly input: number;
    readonly output: number;
    readonly cache_read?: number;
    readonly cache_write?: number;
  };
  /** Tokens of input and output together, and of output alone, one request may hold. */
  readonly limit: { readonly context: number; readonly output: number };
  /** What the model reads and writes ("text", "image", "pdf"…). */
  readonly modalities: { readonly input: readonly string[]; readonly output: readonly string[] };
}

/** A pinned copy of one provider's rows: where they came from, the commit, and its day (YYYY-MM-DD). */
export interface ModelsDevCopy {
  /** The repository the rows were copied from. */
  readonly source: string;
  /** The commit they were copied at. */
  readonly commit: string;
  /** That commit's day (YYYY-MM-DD), which dates every row. */
  readonly date: string;
  /** The models.dev provider folder ("openai", "anthropic"). */
  readonly provider: string;
  /** Rows by model name. */
  readonly models: Readonly<Record<string, ModelsDevRow>>;
}

/**
 * A model table from a pinned copy of models.dev: every row dated with the copy's day, a price only
 * where models.dev lists one (never a neighbour's), and the model's own capabilities (an adapter lowers
 * them to what it offers).
 */
export function modelTableFromModelsDev(copy: ModelsDevCopy): ModelTable {
  const table: Record<string, ModelInfo> = {};
  for (const [name, row] of Object.entries(copy.models)) {
    const cost = row.cost;
    table[name] = Object.freeze({
      contextWindow: row.limit.context,
      maxOutputTokens: row.limit.output,
      ...(cost
        ? {
            price: Object.freeze({
              input: cost.input,
              output: cost.output,
              ...(cost.cache_read === undefined ? {} : { cacheRead: cost.cache_read }),
              ...(cost.cache_write === undefined ? {} : { cacheWrite: cost.cache_write }),
            }),
          }
        : {}),
      capabilities: Object.freeze({
        images: row.modalities.input.includes("image"),
        reasoning: row.reasoning,
        structuredOutput: row.structured_output ?? false,
      }),
      checked: copy.date,
    });
  }
  return Object.freeze(table);
}
