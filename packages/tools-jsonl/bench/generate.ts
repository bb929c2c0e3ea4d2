import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface GeneratedLog {
  readonly dir: string;
  readonly file: string;
  readonly bytes: number;
  readonly rows: number;
  remove(): Promise<void>;
}

const LEVELS = ["info", "info", "info", "debug", "debug", "warn"];
const SERVICES = ["api", "worker", "billing", "auth", "search"];

/**
 * A JSONL log of about `megabytes` MB in a fresh temp folder: mostly info/debug rows, one error in a
 * thousand, one row in a hundred thousand for user "needle-7731", a malformed line every million.
 * Deterministic (a fixed linear congruential sequence), so every run searches the same bytes.
 */
export async function generateLog(megabytes: number): Promise<GeneratedLog> {
  const dir = await mkdtemp(join(tmpdir(), "bridle-jsonl-bench-"));
  const file = join(dir, "app.jsonl");
  const out = createWriteStream(file);
  const target = megabytes * 1024 * 1024;
  let seed = 42;
  // A 32-bit linear congruential step in exact integer arithmetic; its high bits are the usable ones.
  const next = () => {
    seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
    return seed >>> 8;
  };
  let written = 0;
  let rows = 0;
  while (written < target) {
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      rows++;
      if (rows % 1_000_000 === 0) {
        lines.push('{"ts":"2026-01-01T00:00:00Z","level":"info", truncated');
        continue;
      }
      const r = next();
      const level = rows % 1_000 === 0 ? "error" : (LEVELS[r % LEVELS.length] as string);
      const user = rows % 100_000 === 0 ? "needle-7731" : `u${r % 50_000}`;
      lines.push(
        JSON.stringify({
          ts: new Date(1_767_225_600_000 + rows * 10).toISOString(),
          level,
          service: SERVICES[(r >> 3) % SERVICES.length],
          user,
          req: { id: rows, ms: (r >> 5) % 1_000, path: `/v1/items/${r % 9_973}` },
          msg: `handled request ${r.toString(36)} for ${user}`,
        }),
      );
    }
    const chunk = `${lines.join("\n")}\n`;
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return {
    dir,
    file,
    bytes: (await stat(file)).size,
    rows,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
