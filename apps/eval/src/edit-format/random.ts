// A small seeded random source (mulberry32): the benchmark's choices must repeat exactly for a seed, on
// every machine and Node version, which Math.random cannot promise.
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** `count` distinct items, in their original order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const picked = new Set<number>();
    while (picked.size < Math.min(count, items.length)) picked.add(this.int(items.length));
    return [...picked].sort((a, b) => a - b).map((i) => items[i] as T);
  }

  /** An independent stream for a name (a task and attempt), so one task's draws never shift another's. */
  static for(seed: number, ...names: readonly (string | number)[]): Random {
    let hash = seed >>> 0;
    for (const char of names.join("\u0000")) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    return new Random(hash);
  }
}
