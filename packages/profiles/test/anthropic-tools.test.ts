import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixture, text } from "./helpers.js";

describe("Claude Code's shapes over the same tools", () => {
  it("Read then Edit with file_path, old_string, new_string; Edit before Read is a Conflict", async () => {
    const f = await fixture();
    await f.files({ "a.txt": "alpha\nbeta\n", "b.txt": "gamma\n" });
    const tools = f.tools("anthropic", "replace");
    const read = text(await f.call(tools.get("Read"), { file_path: "a.txt" }));
    expect(read).toMatch(/^ *1\talpha\n *2\tbeta/);
    await f.call(tools.get("Edit"), { file_path: "a.txt", old_string: "beta", new_string: "BETA" });
    expect(await readFile(join(f.dir, "a.txt"), "utf8")).toBe("alpha\nBETA\n");
    const unread = await f.fail(tools.get("Edit"), {
      file_path: "b.txt",
      old_string: "gamma",
      new_string: "G",
    });
    expect(unread.kind).toBe("Conflict");
  });

  it("MultiEdit applies every edit in order, or none when one fails", async () => {
    const f = await fixture();
    await f.files({ "m.ts": "const a = 1;\r\nconst b = 2;\r\nconst c = a;\r\n" });
    const tools = f.tools("anthropic", "replace");
    const multi = tools.get("MultiEdit");
    await f.call(tools.get("Read"), { file_path: "m.ts" });
    const failing = await f.fail(multi, {
      file_path: "m.ts",
      edits: [
        { old_string: "const a = 1;", new_string: "const a = 10;" },
        { old_string: "const zzz", new_string: "x" },
      ],
    });
    expect(failing.message).toContain("edit 2 of 2");
    expect(failing.message).toContain("nothing was changed");
    expect(await readFile(join(f.dir, "m.ts"), "utf8")).toBe(
      "const a = 1;\r\nconst b = 2;\r\nconst c = a;\r\n",
    );
    const ambiguous = await f.fail(multi, {
      file_path: "m.ts",
      edits: [{ old_string: "const", new_string: "let" }],
    });
    expect(ambiguous.message).toContain("matches 3 places");
    const ok = await f.call(multi, {
      file_path: "m.ts",
      edits: [
        { old_string: "const a = 1;\nconst b", new_string: "let a = 1;\nlet b" },
        { old_string: "a", new_string: "alpha", replace_all: true },
      ],
    });
    expect(text(ok)).toBe("Edited m.ts: 2 edits, 3 replacements.");
    // The file's CRLF line breaks are kept, also inside a multi-line old_string written with \n.
    expect(await readFile(join(f.dir, "m.ts"), "utf8")).toBe(
      "let alpha = 1;\r\nlet b = 2;\r\nconst c = alpha;\r\n",
    );
  });

  it("MultiEdit recovers from the mistakes Edit recovers from, and refuses the slips Edit refuses", async () => {
    const f = await fixture();
    const code = "function f() {\n  const x = 1;\n  const y = x - 3;\n  return y;\n}\n";
    await f.files({ "m.js": code });
    const tools = f.tools("anthropic", "replace");
    const multi = tools.get("MultiEdit");
    await f.call(tools.get("Read"), { file_path: "m.js" });
    // Read's line-number gutter pasted into both strings, and a JSON-escaped pair: repaired as Edit repairs them.
    const repaired = await f.call(multi, {
      file_path: "m.js",
      edits: [
        { old_string: "3\t  const y = x - 3;", new_string: "3\t  const y = x - 4;" },
        { old_string: String.raw`  return y;\n}`, new_string: String.raw`  return y + 1;\n}` },
      ],
    });
    expect(text(repaired)).toContain("line-number prefixes were removed");
    expect(await readFile(join(f.dir, "m.js"), "utf8")).toBe(
      "function f() {\n  const x = 1;\n  const y = x - 4;\n  return y + 1;\n}\n",
    );
    const after = await readFile(join(f.dir, "m.js"), "utf8");
    // A context line kept in new_string only, and an escape slip in new_string only: refused, all of it.
    const kept = await f.fail(multi, {
      file_path: "m.js",
      edits: [
        { old_string: "return y + 1;", new_string: "return y + 2;" },
        { old_string: "  const y = x - 4;", new_string: "  const x = 1;\n  const y = x - 5;" },
      ],
    });
    expect(kept.message).toContain("edit 2 of 2 (after the edits before it), so nothing was changed");
    expect(kept.message).toContain("repeats line 2, just above old_string");
    const escaped = await f.fail(multi, {
      file_path: "m.js",
      edits: [{ old_string: "  const x = 1;", new_string: String.raw`\tconst x = 2;` }],
    });
    expect(escaped.message).toContain("outside any string");
    expect(await readFile(join(f.dir, "m.js"), "utf8")).toBe(after);
  });

  it("MultiEdit refuses each slip kind edit_file refuses, naming it, and writes nothing", async () => {
    const f = await fixture();
    const code = "const re = /\\d+/;\nfunction g(s) {\n  const n = s.length;\n  return n;\n}\n";
    await f.files({ "g.js": code });
    const tools = f.tools("anthropic", "replace");
    const multi = tools.get("MultiEdit");
    await f.call(tools.get("Read"), { file_path: "g.js" });
    const first = { old_string: "return n;", new_string: "return n + 1;" };
    const refusals = [
      // A kept line with its backslashes doubled (JSON-escaped once too often).
      [
        { old_string: "const re = /\\d+/;", new_string: "const re = /\\\\d+/;\nconst k = 2;" },
        "backslashes doubled",
      ],
      // Escaped quotes standing in code.
      [
        { old_string: "  const n = s.length;", new_string: '  const n = \\"s\\".length;' },
        "outside any string",
      ],
      // A literal \n between statements.
      [
        { old_string: "  const n = s.length;", new_string: "  const n = s.length;\\n  const m = n;" },
        "outside any string",
      ],
      // An old_string that is not there: the nearest lines are named.
      [{ old_string: "  const n = s.size;", new_string: "  const n = 0;" }, "old_string was not found"],
    ] as const;
    for (const [edit, says] of refusals) {
      const failure = await f.fail(multi, { file_path: "g.js", edits: [first, edit] });
      expect(failure.kind).toBe("InvalidInput");
      expect(failure.message).toContain("edit 2 of 2 (after the edits before it), so nothing was changed");
      expect(failure.message).toContain(says);
      expect(await readFile(join(f.dir, "g.js"), "utf8")).toBe(code);
    }
    expect((await f.fail(multi, { file_path: "g.js", edits: [first, refusals[3][0]] })).message).toContain(
      "const n = s.length;",
    );
  });

  it("MultiEdit refuses a file the run has not read, and a path outside the workspace", async () => {
    const f = await fixture();
    await f.files({ "n.txt": "x\n" });
    const multi = f.tools("anthropic", "replace").get("MultiEdit");
    expect(
      (await f.fail(multi, { file_path: "n.txt", edits: [{ old_string: "x", new_string: "y" }] })).kind,
    ).toBe("Conflict");
    expect(
      (await f.fail(multi, { file_path: "../outside.txt", edits: [{ old_string: "x", new_string: "y" }] }))
        .kind,
    ).toBe("Denied");
  });

  it("Write creates a file; Glob lists paths; Grep has Claude Code's output modes", async () => {
    const f = await fixture();
    const tools = f.tools("anthropic", "replace");
    await f.call(tools.get("Write"), {
      file_path: "src/new.ts",
      content: "export const X = 1;\nexport const Y = X;\n",
    });
    await f.files({ "src/old.ts": "const x = 1;\n", "README.md": "x marks\n" });
    expect(
      text(await f.call(tools.get("Glob"), { pattern: "**/*.ts" }))
        .split("\n")
        .sort(),
    ).toEqual(["src/new.ts", "src/old.ts"]);
    expect(text(await f.call(tools.get("Glob"), { pattern: "*.py" }))).toBe("No files found");
    const grep = tools.get("Grep");
    expect(text(await f.call(grep, { pattern: "X" }))).toBe("src/new.ts");
    expect(
      text(await f.call(grep, { pattern: "x", "-i": true, output_mode: "count" }))
        .split("\n")
        .sort(),
    ).toEqual(["README.md:1", "src/new.ts:2", "src/old.ts:1"]);
    expect(text(await f.call(grep, { pattern: "X", output_mode: "content" }))).toBe(
      "src/new.ts:1:export const X = 1;\nsrc/new.ts:2:export const Y = X;",
    );
    expect(
      text(await f.call(grep, { pattern: "X", output_mode: "content", "-n": false, head_limit: 1 })),
    ).toBe("src/new.ts:export const X = 1;");
    expect(text(await f.call(grep, { pattern: "nope" }))).toBe("No matches found");
    // ripgrep's type names, as Claude Code passes them.
    expect(
      text(await f.call(grep, { pattern: "x", "-i": true, type: "ts" }))
        .split("\n")
        .sort(),
    ).toEqual(["src/new.ts", "src/old.ts"]);
    expect(text(await f.call(grep, { pattern: "x", type: "md" }))).toBe("README.md");
    expect((await f.fail(grep, { pattern: "x", type: "md", glob: "*.md" })).message).toContain(
      "glob or type",
    );
    expect((await f.fail(grep, { pattern: "x", type: "cobol" })).kind).toBe("InvalidInput");
  });

  it("Bash gives stdout, stderr and a non-zero exit code as text; TodoWrite updates the plan", async () => {
    const f = await fixture();
    const tools = f.tools("anthropic", "replace");
    expect(text(await f.call(tools.get("Bash"), { command: "echo out; echo err >&2; exit 2" }))).toBe(
      "out\nerr\nExit code 2",
    );
    expect(text(await f.call(tools.get("Bash"), { command: "printf 'ok\\n'", description: "say ok" }))).toBe(
      "ok",
    );
    const todo = await f.call(tools.get("TodoWrite"), {
      todos: [
        { content: "Run the tests", status: "completed", activeForm: "Running the tests" },
        { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
      ],
    });
    expect(text(todo)).toBe("Todo list updated: 1 of 2 completed. Keep it current as you work.");
    expect(todo.details).toEqual({
      plan: [
        { step: "Run the tests", status: "completed" },
        { step: "Fix the bug", status: "in_progress" },
      ],
    });
  });

  it("with hashline edits, Read shows tags and Edit takes them under Claude's names", async () => {
    const f = await fixture();
    await f.files({ "h.txt": "one\ntwo\n" });
    const tools = f.tools("anthropic", "hashline");
    const read = text(await f.call(tools.get("Read"), { file_path: "h.txt" }));
    const tag = /2 ([0-9a-f]{8})/.exec(read)?.[1] ?? /([0-9a-f]{8})[^\n]*two/.exec(read)?.[1];
    expect(tag).toBeDefined();
    await f.call(tools.get("Edit"), {
      file_path: "h.txt",
      edits: [{ op: "replace_line", tag, new_text: "TWO" }],
    });
    expect(await readFile(join(f.dir, "h.txt"), "utf8")).toBe("one\nTWO\n");
  });
});
