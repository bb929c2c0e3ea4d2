import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness, type Message, textOf } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { type Fixture, fixture, text } from "./helpers.js";

const content = (fx: Fixture, path: string) => readFile(join(fx.dir, path), "utf8");
const edit = (fx: Fixture, path: string, old_string: string, new_string: string, runId = "run-1") =>
  fx.call(fx.kit.editFile, { path, old_string, new_string }, runId);

const CODE = [
  "import { a } from './a';",
  "function first() {",
  "  return a + 1;",
  "}",
  "",
  "function second() {",
  "  const x = a * 2;",
  "  const y = x - 3;",
  "  return x + y;",
  "}",
  "",
].join("\n");

describe("a stale read", () => {
  it("shows the current lines around old_string, and those count as read for the retry", async () => {
    const fx = await fixture();
    await fx.files({ "m.ts": CODE });
    await fx.call(fx.kit.readFile, { path: "m.ts" });
    await writeFile(join(fx.dir, "m.ts"), `// header\n${CODE}`);
    const stale = await fx.fail(fx.kit.editFile, {
      path: "m.ts",
      old_string: "  const y = x - 3;",
      new_string: "  const y = x - 4;",
    });
    expect(stale.kind).toBe("Conflict");
    expect(stale.message).toContain("changed on disk since this run last read it; nothing was written.");
    expect(stale.message).toContain(
      " 7\tfunction second() {\n 8\t  const x = a * 2;\n 9\t  const y = x - 3;",
    );
    expect(stale.message.length).toBeLessThan(2_000);
    expect(await content(fx, "m.ts")).toBe(`// header\n${CODE}`);
    await edit(fx, "m.ts", "  const y = x - 3;", "  const y = x - 4;");
    expect(await content(fx, "m.ts")).toBe(`// header\n${CODE.replace("x - 3", "x - 4")}`);
  });

  it("names where old_string most likely went when it is no longer there", async () => {
    const fx = await fixture();
    await fx.files({ "m.ts": CODE });
    await fx.call(fx.kit.readFile, { path: "m.ts" });
    await writeFile(join(fx.dir, "m.ts"), CODE.replace("  const y = x - 3;", "  const y = x - 30;"));
    const stale = await fx.fail(fx.kit.editFile, {
      path: "m.ts",
      old_string: "  const x = a * 2;\n  const y = x - 3;\n  return x + y;",
      new_string: "  return 0;",
    });
    expect(stale.kind).toBe("Conflict");
    expect(stale.message).toContain("Did you mean lines 7-9?");
    expect(stale.message).toContain("8\t  const y = x - 30;");
  });

  it("on a long file stays bounded", async () => {
    const fx = await fixture();
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i} ${"x".repeat(400)}`).join("\n");
    await fx.files({ "l.txt": long });
    await fx.call(fx.kit.readFile, { path: "l.txt" });
    await writeFile(join(fx.dir, "l.txt"), `new\n${long}`);
    const old = Array.from({ length: 200 }, (_, i) => `line ${i + 5} ${"x".repeat(400)}`).join("\n");
    const stale = await fx.fail(fx.kit.editFile, { path: "l.txt", old_string: old, new_string: "x" });
    expect(stale.message.split("\n").length).toBeLessThan(30);
    expect(stale.message.length).toBeLessThan(2_000);
    expect(stale.message).toMatch(/not shown; read_file with offset=\d+\]/);
  });
});

describe("did you mean", () => {
  it("ranks places by how much of the whole old_string they match, not by its first line", async () => {
    const fx = await fixture();
    await fx.files({ "m.ts": CODE });
    await fx.call(fx.kit.readFile, { path: "m.ts" });
    const missing = await fx.fail(fx.kit.editFile, {
      path: "m.ts",
      old_string: "function second() {\n  const x = a * 2;\n  const y = x - 4;\n  return x + y;\n}",
      new_string: "",
    });
    expect(missing.message).toContain("Did you mean lines 6-10? Its text is closest (4 of 5 lines equal");
    expect(missing.message).toContain("8\t  const y = x - 3;");
    const first = await fx.fail(fx.kit.editFile, {
      path: "m.ts",
      old_string: "}\n\nfunction second() {\n  const x = a * 3;",
      new_string: "",
    });
    expect(first.message).toContain("Did you mean lines 4-7?");
  });

  it("does not point at the first place its first line matches", async () => {
    const fx = await fixture();
    await fx.files({ "r.py": "x = 1\na()\nb()\nx = 1\nc()\nd()\n" });
    await fx.call(fx.kit.readFile, { path: "r.py" });
    const missing = await fx.fail(fx.kit.editFile, {
      path: "r.py",
      old_string: "x = 1\nc()\nD()",
      new_string: "",
    });
    expect(missing.message).toContain("Did you mean lines 4-6? Its text is closest (2 of 3 lines equal");
  });

  it("lists every equally good place when old_string is ambiguous even loosely", async () => {
    const fx = await fixture();
    await fx.files({ "d.py": "if a:\n    run()\nif b:\n    run()\n" });
    await fx.call(fx.kit.readFile, { path: "d.py" });
    const missing = await fx.fail(fx.kit.editFile, {
      path: "d.py",
      old_string: "\trun()",
      new_string: "stop()",
    });
    expect(missing.message).toContain("Did you mean one of line 2, line 4?");
  });
});

describe("read_file's line numbers pasted into old_string", () => {
  it("are removed when they name the place the text is, and only there", async () => {
    const fx = await fixture();
    await fx.files({ "t.ts": "x();\nrun();\nx();\nrun();\n" });
    await fx.call(fx.kit.readFile, { path: "t.ts" });
    // "run();" is in two places; the numbers pick line 4.
    const out = await edit(fx, "t.ts", "3\tx();\n4\trun();", "3\tx();\n4\tstop();");
    expect(text(out)).toContain("line-number prefixes were removed");
    expect(await content(fx, "t.ts")).toBe("x();\nrun();\nx();\nstop();\n");
    // Numbers that do not name where the text is, or are not consecutive, are not guessed from.
    for (const old_string of ["2\tx();", "1\tx();\n3\trun();"]) {
      const wrong = await fx.fail(fx.kit.editFile, { path: "t.ts", old_string, new_string: "y();" });
      expect(wrong.kind).toBe("InvalidInput");
    }
    // new_string with numbers on some lines only is not guessed at either.
    const mixed = await fx.fail(fx.kit.editFile, {
      path: "t.ts",
      old_string: "1\tx();",
      new_string: "1\ty();\nz();",
    });
    expect(mixed.kind).toBe("InvalidInput");
    expect(await content(fx, "t.ts")).toBe("x();\nrun();\nx();\nstop();\n");
  });
});

describe("a bare line break at either end of old_string", () => {
  it("cannot join the neighbouring line onto the new text", async () => {
    const fx = await fixture();
    const original = "one\ntwo\nthree\n";
    await fx.files({ "n.txt": original });
    await fx.call(fx.kit.readFile, { path: "n.txt" });
    const leading = await fx.fail(fx.kit.editFile, { path: "n.txt", old_string: "\ntwo", new_string: "TWO" });
    expect(leading.message).toContain(
      "old_string (line 2) starts with a line break but new_string does not, so line 1, just before it,",
    );
    const trailing = await fx.fail(fx.kit.editFile, {
      path: "n.txt",
      old_string: "two\n",
      new_string: "TWO",
    });
    expect(trailing.message).toContain(
      "old_string (line 2) ends with a line break but new_string does not, so line 3, just after it,",
    );
    const crlf = await fx.fail(fx.kit.editFile, { path: "n.txt", old_string: "one\r\n", new_string: "ONE" });
    expect(crlf.kind).toBe("InvalidInput");
    expect(await content(fx, "n.txt")).toBe(original);
    // The same break on both sides, or a deletion, is what it says.
    await edit(fx, "n.txt", "\ntwo", "\nTWO");
    await edit(fx, "n.txt", "one\n", "");
    expect(await content(fx, "n.txt")).toBe("TWO\nthree\n");
  });
});

describe("a context line kept in new_string but not in old_string", () => {
  it("is refused, naming the line and both ways to say what was meant, and never placed twice", async () => {
    const fx = await fixture();
    await fx.files({ "m.ts": CODE });
    await fx.call(fx.kit.readFile, { path: "m.ts" });
    const above = await fx.fail(fx.kit.editFile, {
      path: "m.ts",
      old_string: "  const y = x - 3;",
      new_string: "  const x = a * 2;\n  const y = x - 4;",
    });
    expect(above.kind).toBe("InvalidInput");
    expect(above.message).toContain(
      'the first line of new_string repeats line 7, just above old_string (line 8): "  const x = a * 2;"',
    );
    expect(above.message).toContain("leave it out of new_string");
    const below = await fx.fail(fx.kit.editFile, {
      path: "m.ts",
      old_string: "  const y = x - 3;",
      new_string: "  const y = x - 5;\n  return x + y;",
    });
    expect(below.message).toContain("the last line of new_string repeats line 9, just below old_string");
    expect(await content(fx, "m.ts")).toBe(CODE);
    // Either retry the refusal offers works, once.
    await edit(
      fx,
      "m.ts",
      "  const x = a * 2;\n  const y = x - 3;",
      "  const x = a * 2;\n  const y = x - 4;",
    );
    expect(await content(fx, "m.ts")).toBe(CODE.replace("x - 3", "x - 4"));
    // A repeat the file already had, or a blank line, is no slip.
    const quiet = await edit(fx, "m.ts", "  return a + 1;", "  return a + 2;");
    expect(text(quiet)).toContain("Edited m.ts");
  });
});

describe("escape slips in new_string alone", () => {
  const r = String.raw;
  const cases = [
    { name: "escaped quotes", new_string: r`  const y = \"x\" + 3;`, meant: '  const y = "x" + 3;' },
    { name: "a tab written as \\t", new_string: r`\tconst y = x - 4;`, meant: "\tconst y = x - 4;" },
    {
      name: "a line break written as \\n beside real ones",
      new_string: `  const y = x - 4;\n  const z = 1;${r`\n`}  const w = 2;`,
      meant: "  const y = x - 4;\n  const z = 1;\n  const w = 2;",
    },
  ];
  it.each(cases)("refuses $name where the file around has none, and writes nothing", async (c) => {
    const fx = await fixture();
    await fx.files({ "m.ts": CODE });
    await fx.call(fx.kit.readFile, { path: "m.ts" });
    const slip = await fx.fail(fx.kit.editFile, {
      path: "m.ts",
      old_string: "  const y = x - 3;",
      new_string: c.new_string,
    });
    expect(slip.kind).toBe("InvalidInput");
    expect(slip.message).toMatch(/outside any string \(its line \d, which lands at line (8|9)\b/);
    expect(slip.message).toContain("Resend new_string with real quotes, tabs and line breaks");
    expect(await content(fx, "m.ts")).toBe(CODE);
    await edit(fx, "m.ts", "  const y = x - 3;", c.meant);
    expect(await content(fx, "m.ts")).toBe(CODE.replace("  const y = x - 3;", c.meant));
  });

  it("writes escapes inside a string, and those the code around already holds", async () => {
    const fx = await fixture();
    const code = 'const s = "a";\nrun();\n';
    await fx.files({ "s.ts": code, "sh.sh": 'echo \\"hi\\"\necho done\n' });
    await fx.call(fx.kit.readFile, { path: "s.ts" });
    await edit(fx, "s.ts", '"a"', r`"a\nb\t\"c\""`);
    expect(await content(fx, "s.ts")).toBe(`const s = ${r`"a\nb\t\"c\""`};\nrun();\n`);
    await fx.call(fx.kit.readFile, { path: "sh.sh" });
    await edit(fx, "sh.sh", "echo done", r`echo \"done\"`);
    expect(await content(fx, "sh.sh")).toBe('echo \\"hi\\"\necho \\"done\\"\n');
  });
});

describe("in a run", () => {
  it("a scripted model retries a stale edit from the refusal alone, without reading again", async () => {
    const fx = await fixture();
    await fx.files({ "m.ts": CODE });
    const last = (messages: readonly Message[]) => {
      const found = messages.findLast((m) => m.role === "tool");
      return found && found.role === "tool" ? textOf(found.content) : "";
    };
    const call = { name: "edit_file", arguments: { path: "m.ts", old_string: "a + 1", new_string: "a + 2" } };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "read_file", arguments: { path: "m.ts" } }] },
      async () => {
        await writeFile(join(fx.dir, "m.ts"), `// changed\n${CODE}`);
        return { toolCalls: [call] };
      },
      ({ messages }) => {
        expect(last(messages)).toContain("3\tfunction first() {");
        return { toolCalls: [call] };
      },
      { text: "done" },
    ]);
    const harness = new Harness({ model, tools: fx.kit.tools, workspace: fx.workspace });
    const result = await harness.run({ prompt: "bump" });
    const kinds = result.messages
      .filter((m) => m.role === "tool")
      .map((m) => m.role === "tool" && (m.errorKind ?? "ok"));
    expect(kinds).toEqual(["ok", "Conflict", "ok"]);
    expect(await content(fx, "m.ts")).toBe(`// changed\n${CODE.replace("a + 1", "a + 2")}`);
  });
});
