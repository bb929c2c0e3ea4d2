import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BridleError } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { type GrepDetails, locateRipgrep } from "../src/index.js";
import { fixture, text } from "./helpers.js";

describe("grep", () => {
  it("returns [{file, line, text}] in rg's file:line:text layout, sorted", async () => {
    const fx = await fixture();
    await fx.files({
      "src/b.ts": "const x = 1;\nfunction handler() {}\n",
      "src/a.ts": "// handler here\nexport function handler() {}\n",
      "README.md": "no match\n",
    });
    const out = await fx.call<GrepDetails>(fx.kit.grep, { pattern: "function \\w+\\(" });
    expect(out.details?.matches).toEqual([
      { file: "src/a.ts", line: 2, text: "export function handler() {}" },
      { file: "src/b.ts", line: 2, text: "function handler() {}" },
    ]);
    expect(text(out)).toBe(
      "src/a.ts:2:export function handler() {}\nsrc/b.ts:2:function handler() {}\n\n2 matching lines in 2 files.",
    );
    const none = await fx.call<GrepDetails>(fx.kit.grep, { pattern: "nowhere" });
    expect(text(none)).toBe("No matches for /nowhere/ in the workspace.");
  });

  it("filters by path and include, and shows context", async () => {
    const fx = await fixture();
    await fx.files({
      "src/a.ts": "one\ntwo\nTARGET\nfour\nfive\nsix\nTARGET\n",
      "src/a.md": "TARGET\n",
      "lib/c.ts": "TARGET\n",
    });
    const scoped = await fx.call<GrepDetails>(fx.kit.grep, {
      pattern: "TARGET",
      path: "src",
      include: "*.ts",
      context: 1,
    });
    expect(text(scoped)).toBe(
      "src/a.ts-2-two\nsrc/a.ts:3:TARGET\nsrc/a.ts-4-four\n--\nsrc/a.ts-6-six\nsrc/a.ts:7:TARGET\n\n2 matching lines in 1 file.",
    );
    expect(scoped.details?.context).toHaveLength(3);
    const oneFile = await fx.call<GrepDetails>(fx.kit.grep, { pattern: "TARGET", path: "lib/c.ts" });
    expect(oneFile.details?.matches).toEqual([{ file: "lib/c.ts", line: 1, text: "TARGET" }]);
  });

  it("stops at max_matches and says more exist", async () => {
    const fx = await fixture();
    await fx.files(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, "hit\nhit\n"])));
    const out = await fx.call<GrepDetails>(fx.kit.grep, { pattern: "hit", max_matches: 7 });
    expect(out.details?.matches).toHaveLength(7);
    expect(out.details?.truncated).toBe(true);
    expect(text(out)).toContain("[Stopped at max_matches=7; more matches exist.");
    const exact = await fx.call<GrepDetails>(fx.kit.grep, { pattern: "hit", max_matches: 60 });
    expect(exact.details).toMatchObject({ truncated: false });
    expect(exact.details?.matches).toHaveLength(60);
    expect(fx.kit.grep.inputSchema.safeParse({ pattern: "a", max_matches: 5000 }).success).toBe(false);
  });

  it("skips binary files, huge files, ignored files and .git", async () => {
    const fx = await fixture({ grepMaxFileBytes: 1024 });
    await fx.files({
      "text.txt": "needle\n",
      "blob.bin": Buffer.concat([Buffer.from("needle\n"), Buffer.alloc(16), Buffer.from("needle\n")]),
      "big.txt": `${"x".repeat(2048)}\nneedle\n`,
      ".gitignore": "ignored/\n",
      "ignored/a.txt": "needle\n",
      ".git/config": "needle\n",
      ".hidden/visible.txt": "needle\n",
    });
    const out = await fx.call<GrepDetails>(fx.kit.grep, { pattern: "needle" });
    expect(out.details?.matches.map((m) => m.file)).toEqual([".hidden/visible.txt", "text.txt"]);
  });

  it("cuts long matching lines and keeps a pattern that starts with a dash a pattern", async () => {
    const fx = await fixture();
    await fx.files({ "min.js": `${"a".repeat(5_000)}--flag\n`, "opts.txt": "--flag here\n" });
    const out = await fx.call<GrepDetails>(fx.kit.grep, { pattern: "--flag" });
    const long = out.details?.matches.find((m) => m.file === "min.js");
    expect(long?.text).toBe(`${"a".repeat(500)} …`);
    expect(out.details?.matches.find((m) => m.file === "opts.txt")?.text).toBe("--flag here");
  });

  it("bounds the text the model sees, while details keep every match", async () => {
    const fx = await fixture({ maxReadChars: 2_000 });
    await fx.files({
      "many.txt": `${Array.from({ length: 200 }, (_, i) => `hit number ${i}`).join("\n")}\n`,
    });
    const out = await fx.call<GrepDetails>(fx.kit.grep, { pattern: "hit", max_matches: 500 });
    expect(out.details?.matches).toHaveLength(200);
    expect(text(out).length).toBeLessThan(2_300);
    expect(text(out)).toMatch(
      /\[\d+ more output lines not shown \(over 2,000 characters\)\. Narrow the search\.\]/,
    );
  });

  it("reports a bad regex as InvalidInput with ripgrep's explanation", async () => {
    const fx = await fixture();
    await fx.files({ "a.txt": "a\n" });
    const failure = await fx.fail(fx.kit.grep, { pattern: "foo(" });
    expect(failure.kind).toBe("InvalidInput");
    expect(failure.message).toContain("regex parse error");
  });

  it("returns partial results when the search outlives its timeout, and kills rg on abort", async () => {
    const fx = await fixture({ grepTimeoutMs: 300 });
    // A stand-in rg that prints one match, then hangs: the tool must not hang with it.
    const fake = join(fx.outside, "slow-rg");
    const match = JSON.stringify({
      type: "match",
      data: { path: { text: "a.txt" }, lines: { text: "slow hit\n" }, line_number: 4 },
    });
    await writeFile(fake, `#!/bin/sh\nprintf '%s\\n' '${match}'\nexec sleep 30\n`);
    await chmod(fake, 0o755);
    const slow = await fixture({ grepTimeoutMs: 300, ripgrepPath: fake });
    const out = await slow.call<GrepDetails>(slow.kit.grep, { pattern: "hit" });
    expect(out.details).toMatchObject({
      timedOut: true,
      matches: [{ file: "a.txt", line: 4, text: "slow hit" }],
    });
    expect(text(out)).toContain("took longer than 0.3 s and was stopped; results are partial");

    const silent = join(fx.outside, "silent-rg");
    await writeFile(silent, "#!/bin/sh\nexec sleep 30\n");
    await chmod(silent, 0o755);
    const nothing = await fixture({ grepTimeoutMs: 300, ripgrepPath: silent });
    const timeout = await nothing.fail(nothing.kit.grep, { pattern: "hit" });
    expect(timeout.kind).toBe("Timeout");
    expect(timeout.message).toContain("found nothing within 0.3 s");

    const patient = await fixture({ ripgrepPath: fake });
    const controller = new AbortController();
    const pending = patient.call(patient.kit.grep, { pattern: "hit" }, "run-1", controller.signal);
    setTimeout(() => controller.abort(new Error("stop")), 100);
    await expect(pending).rejects.toThrow("stop");
  });

  it("finds ripgrep: a configured path, else @vscode/ripgrep's binary", async () => {
    const bundled = await locateRipgrep();
    expect(bundled).toMatch(/ripgrep/);
    await expect(locateRipgrep("/nonexistent/rg")).rejects.toBeInstanceOf(BridleError);
  });
});
