import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, test } from "vitest";
import { applyPatch } from "../src/index.js";

// One run, side by side: the same three-chunk patch on a 50,000-line file, once matching exactly and once
// only after the punctuation fallback (the file has typographic quotes the patch writes as ASCII).
// Each iteration writes the file afresh (about 1.5 MB, the same cost in both) and then applies the patch.
const LINES = 50_000;
let dir: string;

function fileText(quote: (text: string) => string): string {
  return `${Array.from({ length: LINES }, (_, index) => `line ${index}: ${quote(`value ${index}`)}`).join("\n")}\n`;
}

function patchFor(): string {
  const chunks = [10_000, 25_000, 40_000].map(
    (at) =>
      `@@\n line ${at}: "value ${at}"\n-line ${at + 1}: "value ${at + 1}"\n+line ${at + 1}: "value ${at + 1}" // changed\n line ${at + 2}: "value ${at + 2}"`,
  );
  return `*** Begin Patch\n*** Update File: big.txt\n${chunks.join("\n")}\n*** End Patch\n`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "apply-patch-bench-"));
  await writeFile(
    join(dir, "exact.txt"),
    fileText((text) => `"${text}"`),
  );
  await writeFile(
    join(dir, "curly.txt"),
    fileText((text) => `\u201c${text}\u201d`),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test("three chunks on a 50,000-line file", async ({ bench }) => {
  await bench("exact context", async () => {
    await writeFile(
      join(dir, "big.txt"),
      fileText((text) => `"${text}"`),
    );
    await applyPatch(patchFor(), { root: dir });
  }).run();
  await bench("context matched after punctuation normalisation", async () => {
    await writeFile(
      join(dir, "big.txt"),
      fileText((text) => `\u201c${text}\u201d`),
    );
    await applyPatch(patchFor(), { root: dir });
  }).run();
});
