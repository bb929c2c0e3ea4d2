// Pass rates with Wilson score intervals, grouped by any key of a results line.
import type { ResultLine } from "../result.js";

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/**
 * The Wilson score interval of a binomial proportion (95% by default). Unlike the normal approximation it
 * stays inside [0, 1] and is honest for the small samples and 0%/100% rates evals produce.
 */
export function wilson(passes: number, n: number, z = 1.959964): Interval {
  if (n === 0) return { low: 0, high: 1 };
  const p = passes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface GroupStats {
  readonly key: string;
  readonly n: number;
  readonly passes: number;
  readonly rate: number;
  readonly interval: Interval;
  readonly failedEditCalls: number;
  readonly failedToolCalls: number;
  readonly turns: number;
  readonly tokens: number;
  readonly costUsd: number;
  readonly durationMs: number;
}

export function groupStats(lines: readonly ResultLine[], keyOf: (line: ResultLine) => string): GroupStats[] {
  const groups = new Map<string, ResultLine[]>();
  for (const line of lines) {
    const key = keyOf(line);
    const list = groups.get(key);
    if (list) list.push(line);
    else groups.set(key, [line]);
  }
  return [...groups.entries()]
    .map(([key, group]) => {
      const passes = group.filter((line) => line.pass).length;
      const sum = (pick: (line: ResultLine) => number) =>
        group.reduce((total, line) => total + pick(line), 0);
      return {
        key,
        n: group.length,
        passes,
        rate: passes / group.length,
        interval: wilson(passes, group.length),
        failedEditCalls: sum((line) => line.failedEditCalls),
        failedToolCalls: sum((line) => line.failedToolCalls),
        turns: sum((line) => line.turns),
        tokens: sum((line) => line.inputTokens + line.outputTokens),
        costUsd: sum((line) => line.costUsd ?? 0),
        durationMs: sum((line) => line.durationMs),
      };
    })
    .sort((a, b) => a.key.localeCompare(b.key));
}
