import { glob, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import type { Change } from "../src/apply-edits.js";
import { assertNotOverEscaped } from "../src/over-escape.js";

// Both tests walk every source file of the repository, so they take longer as it grows (15–20 s on a
// loaded 2-core CI machine): they get a bound of their own instead of the default 20 s.
const CORPUS_TIMEOUT_MS = 120_000;

// Bridle's own TypeScript, always present in a checkout: real lines with every kind of escape in strings,
// regexes, templates and comments, and the same lines over-escaped the way a double JSON encoding does.
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

async function sources(): Promise<{ path: string; lines: string[] }[]> {
  const out: { path: string; lines: string[] }[] = [];
  for (const pattern of ["packages/*/src/**/*.ts", "apps/*/src/**/*.ts"]) {
    for await (const path of glob(pattern, { cwd: ROOT })) {
      out.push({ path, lines: (await readFile(`${ROOT}${path}`, "utf8")).split("\n") });
    }
  }
  return out;
}

function refused(file: readonly string[], change: Omit<Change, "edit">): boolean {
  try {
    assertNotOverEscaped({ count: file.length, text: (i) => file[i] as string }, [{ edit: 0, ...change }]);
    return false;
  } catch {
    return true;
  }
}

it(
  "refuses no real line holding a backslash, written as new text where it stands",
  async () => {
    const wrongly: string[] = [];
    let checked = 0;
    for (const { path, lines } of await sources()) {
      lines.forEach((line, i) => {
        if (!line.includes("\\")) return;
        checked++;
        // The file without the line, and the line inserted back after its predecessor: the lines around
        // are the real ones, the line itself is no witness for itself.
        const rest = [...lines.slice(0, i), ...lines.slice(i + 1)];
        const at = Math.max(0, i - 1);
        if (refused(rest, { insert: true, start: at, end: at, lines: [line] }))
          wrongly.push(`${path}:${i + 1}: ${line}`);
      });
    }
    expect(checked).toBeGreaterThan(300);
    expect(wrongly).toEqual([]);
  },
  CORPUS_TIMEOUT_MS,
);

it(
  "refuses most real lines once over-escaped: quotes escaped, or two lines joined by a literal \\n",
  async () => {
    let quoted = 0;
    let quotedCaught = 0;
    let joined = 0;
    let joinedCaught = 0;
    for (const { lines } of await sources()) {
      for (let i = 0; i + 1 < lines.length; i += 5) {
        const line = lines[i] as string;
        const after = lines[i + 1] as string;
        const replace = (text: string) => refused(lines, { insert: false, start: i, end: i, lines: [text] });
        if (/["']/.test(line)) {
          quoted++;
          if (replace(line.replace(/\\/g, "\\\\").replace(/["']/g, "\\$&"))) quotedCaught++;
        }
        if (line.trim() && after.trim() && !/["'`\\]/.test(line + after)) {
          joined++;
          if (replace(`${line}\\n${after}`)) joinedCaught++;
        }
      }
    }
    // The misses are text inside template literals and comments, where a backslash sequence can be prose.
    expect(quoted).toBeGreaterThan(300);
    expect(joined).toBeGreaterThan(300);
    expect(quotedCaught / quoted).toBeGreaterThan(0.85);
    expect(joinedCaught / joined).toBeGreaterThan(0.9);
  },
  CORPUS_TIMEOUT_MS,
);
