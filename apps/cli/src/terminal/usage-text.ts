// Token counts as the cost lines show them: "12.3k in (9.8k cached) · 1.2k out". One home for the turn's
// line, the run's `done:` line and `/cost`, so the three never disagree on what "cached" means.
import type { Usage } from "@bridle/core";

/**
 * `inputTokens` includes the cached parts (core's Usage), so "(9.8k cached)" is the share of the input read
 * from the prompt cache, billed at the cache rate; a cache write, billed above the input rate, is said too.
 */
export function usageText(
  usage: Pick<Usage, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">,
): string {
  const parts = [
    ...(usage.cacheReadTokens > 0 ? [`${tokens(usage.cacheReadTokens)} cached`] : []),
    ...(usage.cacheWriteTokens > 0 ? [`${tokens(usage.cacheWriteTokens)} written to cache`] : []),
  ];
  const cache = parts.length > 0 ? ` (${parts.join(", ")})` : "";
  return `${tokens(usage.inputTokens)} in${cache} · ${tokens(usage.outputTokens)} out`;
}

/** 950, 12.3k, 4.5M: exact below a thousand, one decimal above (a trailing .0 dropped). */
function tokens(n: number): string {
  if (n < 1000) return String(n);
  const [value, unit] = n < 1_000_000 ? [n / 1000, "k"] : [n / 1_000_000, "M"];
  // 999,950 rounds to "1000.0k": say it in the next unit instead.
  const shown = value.toFixed(1);
  if (unit === "k" && shown === "1000.0") return "1M";
  return `${shown.endsWith(".0") ? shown.slice(0, -2) : shown}${unit}`;
}
