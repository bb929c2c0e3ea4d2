import { createHash } from "node:crypto";

/** OpenAI refuses a longer `prompt_cache_key` with a 400 (`string_above_max_length`). */
const MAX_LENGTH = 64;

/**
 * The request's cache key as `prompt_cache_key` (none for a blank key): a key longer than OpenAI takes
 * becomes its SHA-256, as stable as the key itself, rather than a refused request.
 */
export function promptCacheKeyField(key: string | undefined): { prompt_cache_key?: string } {
  if (!key?.trim()) return {};
  if (key.length <= MAX_LENGTH) return { prompt_cache_key: key };
  return { prompt_cache_key: createHash("sha256").update(key).digest("hex") };
}
