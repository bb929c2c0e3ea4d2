// The user config's `models` section: what bridle should know about a model its provider's table lacks (a
// local server's, a new release) or knows wrongly (a changed price). Each row becomes a row of the
// provider's model table (provider-kit's `models` option), so the cost line, when compaction starts and
// whether images are sent all read it, and the unknown-model warning is not given for it.
import type { ModelInfo } from "@bridle/core";
import type { ModelTable } from "@bridle/provider-kit";
import { z } from "zod";

const perMillion = z.number().min(0).max(10_000);

const modelRow = z
  .object({
    /** Tokens of input and output together one request may hold. */
    contextWindow: z.number().int().min(1_000),
    /** The most output tokens one response may have (default: a quarter of the window, at most 32 768). */
    maxOutputTokens: z.number().int().positive().optional(),
    /** US dollars per million tokens; cache prices default to the input price. */
    price: z
      .object({
        input: perMillion,
        output: perMillion,
        cacheRead: perMillion.optional(),
        cacheWrite: perMillion.optional(),
      })
      .strict()
      .optional(),
    capabilities: z
      .object({
        images: z.boolean().default(false),
        reasoning: z.boolean().default(false),
        structuredOutput: z.boolean().default(false),
      })
      .strict()
      .default({ images: false, reasoning: false, structuredOutput: false }),
  })
  .strict();

/** `models`: model name to its row, as the config file writes it. */
export const modelRowsSetting = z
  .record(z.string().min(1).max(200), modelRow)
  .optional()
  .transform((rows): ModelTable | undefined => (rows ? modelTableOf(rows) : undefined));

function modelTableOf(rows: Readonly<Record<string, z.output<typeof modelRow>>>): ModelTable {
  const table: Record<string, ModelInfo> = {};
  for (const [name, row] of Object.entries(rows)) {
    // Own keys only, defined rather than assigned: a model named "__proto__" is a row, not a prototype.
    Object.defineProperty(table, name, {
      value: {
        contextWindow: row.contextWindow,
        maxOutputTokens: row.maxOutputTokens ?? Math.min(Math.floor(row.contextWindow / 4), 32_768),
        ...(row.price ? { price: row.price } : {}),
        capabilities: row.capabilities,
        // Not compared with anything published: the user's own figures.
        checked: "your config",
      } satisfies ModelInfo,
      enumerable: true,
    });
  }
  return table;
}
