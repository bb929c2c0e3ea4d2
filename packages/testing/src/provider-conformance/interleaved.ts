/** Median and fastest time of one variant, in milliseconds. */
export interface InterleavedTiming {
  readonly name: string;
  readonly medianMs: number;
  readonly minMs: number;
}

/**
 * Times variants in alternation, round after round, and reports each one's median. Running them side by
 * side in every round spreads JIT warm-up, garbage collection and a busy machine over all of them alike,
 * which a benchmark that runs each variant in its own block does not (on a loaded machine the block run
 * second can look several times faster or slower than the first).
 */
export async function timeInterleaved(
  variants: Readonly<Record<string, () => Promise<void>>>,
  options: { readonly rounds?: number; readonly warmupRounds?: number } = {},
): Promise<InterleavedTiming[]> {
  const rounds = options.rounds ?? 40;
  const warmup = options.warmupRounds ?? 5;
  const samples = new Map<string, number[]>(Object.keys(variants).map((name) => [name, []]));
  for (let round = 0; round < warmup + rounds; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const started = performance.now();
      await run();
      if (round >= warmup) samples.get(name)?.push(performance.now() - started);
    }
  }
  return [...samples].map(([name, list]) => {
    const sorted = list.sort((a, b) => a - b);
    return { name, medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0, minMs: sorted[0] ?? 0 };
  });
}

/** One line per variant: median, fastest, events per second at the median, and the ratio to the first. */
export function formatTimings(timings: readonly InterleavedTiming[], eventsPerRun: number): string {
  const base = timings[0]?.medianMs ?? 1;
  return timings
    .map(
      (timing) =>
        `${timing.name}: median ${timing.medianMs.toFixed(2)} ms (min ${timing.minMs.toFixed(2)}), ` +
        `${Math.round((eventsPerRun / timing.medianMs) * 1000).toLocaleString("en-US")} events/s, ` +
        `${(timing.medianMs / base).toFixed(2)}× the first`,
    )
    .join("\n");
}
