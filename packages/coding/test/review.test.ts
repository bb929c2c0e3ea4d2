import { diffLines } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { inScope, reviewChanges } from "../src/review.js";
import { scanAddedLines, shannonEntropy } from "../src/secret-scan.js";

// Built at run time so that this file holds no literal credential.
function r(alphabet: string, n: number, seed = 7): string {
  let state = seed;
  let out = "";
  for (let i = 0; i < n; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out += alphabet[(state >> 8) % alphabet.length];
  }
  return out;
}
const AZ09 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const MIXED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

const SECRETS: readonly (readonly [string, string])[] = [
  ["AWS access key id", `key = "AKIA${r(AZ09, 16)}"`],
  ["AWS secret access key", `aws_secret_access_key = ${r(MIXED, 40)}`],
  ["GitHub token", `token: ghp_${r(MIXED, 36)}`],
  ["GitHub fine-grained token", `github_pat_${r(MIXED, 82)}`],
  ["Anthropic API key", `ANTHROPIC_API_KEY=sk-ant-api03-${r(MIXED, 93)}`],
  ["OpenAI API key", `sk-proj-${r(MIXED, 20)}T3BlbkFJ${r(MIXED, 20)}`],
  ["OpenAI-style API key", `OPENAI_API_KEY=sk-proj-${r(MIXED, 48)}`],
  ["Slack token", `xoxb-${r("0123456789", 12)}-${r(MIXED, 24)}`],
  ["Stripe secret key", `sk_live_${r(MIXED, 24)}`],
  ["Google API key", `AIza${r(MIXED, 35)}`],
  ["private key block", "-----BEGIN RSA PRIVATE KEY-----"],
  ["private key block", "-----BEGIN OPENSSH PRIVATE KEY-----"],
  ["JSON web token", `eyJ${r(MIXED, 20)}.eyJ${r(MIXED, 30)}.${r(MIXED, 40)}`],
  ["credentials in a URL", "postgres://admin:hunter22@db.internal:5432/app"],
  ["high-entropy string", `const apiToken = "${r(MIXED, 24, 3)}";`],
  ["high-entropy string", `blob = "${r(MIXED, 48, 5)}"`],
];

const HARMLESS = [
  "const total = items.reduce((sum, item) => sum + item.price, 0);",
  "import { createCodingOverlay } from '@bridle/coding';",
  "// see https://example.com/docs/getting-started for details",
  "sha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'",
  "const AKIA = 'not a key';",
  "password = os.environ['DB_PASSWORD']",
  "token = getToken()",
  "-----BEGIN PUBLIC KEY-----",
  "ThisIsAVeryLongIdentifierNameButNotASecretAtAll",
  "handleUser2FactorAuthenticationRequest(event)",
  "const ID_PREFIX = 'order_2024_11_24_batch_0001';",
];

describe("secret scan", () => {
  it.each(SECRETS)("finds a %s", (what, line) => {
    expect(scanAddedLines("src/x.ts", ["ok", line], 10)).toEqual([{ what, line: 11 }]);
  });

  it.each(HARMLESS)("leaves %s alone", (line) => {
    expect(scanAddedLines("src/x.ts", [line], 1)).toEqual([]);
  });

  it("flags anything added to a secret file, and entropy grows with randomness", () => {
    expect(scanAddedLines(".env", ["DEBUG=1"], 1)).toEqual([{ what: "content in a secret file", line: 1 }]);
    expect(scanAddedLines(".env.example", ["DEBUG=1"], 1)).toEqual([]);
    expect(shannonEntropy("aaaaaaaa")).toBe(0);
    expect(shannonEntropy(r(MIXED, 40))).toBeGreaterThan(4.5);
  });
});

describe("line diff", () => {
  // The diff must turn `before` into `after`: replaying its hunks reproduces the new text exactly.
  function replay(before: string, after: string): void {
    const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
    const diff = diffLines(before, after);
    const out = [...a];
    for (const hunk of [...diff.hunks].reverse()) {
      const at = hunk.removed.length > 0 ? hunk.oldStart - 1 : hunk.oldStart - 1;
      expect(out.slice(at, at + hunk.removed.length)).toEqual(hunk.removed);
      out.splice(at, hunk.removed.length, ...hunk.added);
    }
    const b = after === "" ? [] : after.replace(/\n$/, "").split("\n");
    expect(out).toEqual(b);
    expect(diff.added - diff.removed).toBe(b.length - a.length);
  }

  it("replays to the new text over generated edits, and is minimal on small cases", () => {
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 300; round++) {
      const a = Array.from({ length: next() % 30 }, () => `l${next() % 6}`);
      const b = [...a];
      for (let edits = next() % 6; edits > 0; edits--) {
        const at = next() % (b.length + 1);
        if (next() % 2 === 0 && b.length > 0) b.splice(at, 1);
        else b.splice(at, 0, `n${next() % 6}`);
      }
      replay(a.map((l) => `${l}\n`).join(""), b.map((l) => `${l}\n`).join(""));
    }
    expect(diffLines("a\nb\nc\n", "a\nx\nc\n")).toMatchObject({ added: 1, removed: 1 });
    expect(diffLines("", "a\nb\n")).toMatchObject({ added: 2, removed: 0 });
    expect(diffLines("a\nb\n", "")).toMatchObject({ added: 0, removed: 2 });
  });

  it("counts a rewrite too large for exact hunks as replaced whole", () => {
    const before = Array.from({ length: 3000 }, (_, i) => `a${i}`).join("\n");
    const after = Array.from({ length: 3000 }, (_, i) => `b${i}`).join("\n");
    expect(diffLines(before, after)).toMatchObject({ added: 3000, removed: 3000 });
  });
});

describe("review", () => {
  const file = (path: string, removed: string[], added: string[]) => ({
    path,
    change: "modified" as const,
    added: added.length,
    removed: removed.length,
    hunks: [{ oldStart: 1, newStart: 1, removed, added }],
    binary: false,
  });

  it("tells whitespace-only from formatting-only from real hunks", () => {
    const flags = reviewChanges([
      file("a.ts", ["const a = 1;"], ["const  a = 1;"]),
      file("b.ts", ["const a = 'x'"], ['const a = "x";']),
      file("c.ts", ["const a = 1;"], ["const a = 2;"]),
    ]);
    expect(flags).toEqual([
      { kind: "churn", path: "a.ts", note: "whitespace-only hunk at line 1" },
      { kind: "churn", path: "b.ts", note: "formatting-only hunk at line 1" },
    ]);
  });

  it("matches scope entries as folders, files and globs", () => {
    expect(inScope("src/a/b.ts", ["src"])).toBe(true);
    expect(inScope("src/a/b.ts", ["./src/"])).toBe(true);
    expect(inScope("srcx/b.ts", ["src"])).toBe(false);
    expect(inScope("src/a/b.ts", ["src/*/b.ts"])).toBe(true);
    expect(inScope("src/a/c/b.ts", ["src/*/b.ts"])).toBe(false);
    expect(inScope("src/a/c/b.ts", ["src/**/b.ts"])).toBe(true);
    expect(inScope("README.md", ["src/**"])).toBe(false);
  });
});
