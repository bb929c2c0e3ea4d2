import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectOk, setup, tagOf } from "./helpers.js";

// Every string below is what the tool receives after JSON parsing: String.raw keeps each backslash as one
// character, exactly as a model's argument `"a\\nb"` arrives.
const r = String.raw;

interface Case {
  readonly name: string;
  readonly file: string;
  readonly lines: readonly string[];
  /** 1-based line replaced (or inserted after, with `insert`). */
  readonly at: number;
  readonly newText: string;
  readonly insert?: boolean;
}

const LEGITIMATE: readonly Case[] = [
  {
    name: "a LaTeX command beginning with \\t where the lines around write commands",
    file: "a.tex",
    lines: [r`\section{Intro}`, "Some text.", r`\end{document}`],
    at: 2,
    newText: r`\textbf{Some} text.`,
  },
  {
    name: "a JS string holding \\n",
    file: "a.js",
    lines: ["const a = 1;", "const b = 2;"],
    at: 2,
    newText: r`const msg = "line one\nline two";`,
  },
  {
    name: "escaped quotes inside a double-quoted string",
    file: "a.js",
    lines: ["const a = 1;"],
    at: 1,
    newText: r`const s = "say \"hi\"";`,
  },
  { name: "an escaped apostrophe", file: "a.js", lines: ["let s;"], at: 1, newText: r`let s = 'it\'s';` },
  {
    name: "a JSON text inside a single-quoted string",
    file: "a.test.js",
    lines: ["const body = '{}';"],
    at: 1,
    newText: r`const body = '{\"k\": 1, \"v\": \"a\\nb\"}';`,
  },
  {
    name: "a regex literal with \\r?\\n",
    file: "a.js",
    lines: ["const parts = text.split('x');"],
    at: 1,
    newText: r`const parts = text.split(/\r?\n/);`,
  },
  {
    name: "a regex literal after return",
    file: "a.js",
    lines: ["function f(s) {", "  return true;", "}"],
    at: 2,
    newText: r`  return /\n$/.test(s) && /\t/.test(s);`,
  },
  { name: "a template literal", file: "a.js", lines: ["let t;"], at: 1, newText: "let t = `a\\tb\\n`;" },
  {
    name: "a Windows path in a comment",
    file: "a.js",
    lines: ["// see the file", "run();"],
    at: 1,
    newText: r`// see C:\new\table.txt and .\tools\run.cmd`,
  },
  {
    name: "a Windows path in a string",
    file: "a.py",
    lines: ["p = None"],
    at: 1,
    newText: r`p = "C:\\new\\table"`,
  },
  {
    name: "a JSON fixture",
    file: "fixture.json",
    lines: ["{", '  "text": "x"', "}"],
    at: 2,
    newText: r`  "text": "a\nb\t\"quoted\"\\"`,
  },
  {
    name: "a Python raw string",
    file: "a.py",
    lines: ["pattern = None"],
    at: 1,
    newText: r`pattern = r"\n+\t"`,
  },
  {
    name: "a C printf format",
    file: "a.c",
    lines: ["  return 0;"],
    at: 1,
    newText: r`  printf("%d\t%s\n", n, s);`,
    insert: true,
  },
  {
    name: "C character literals",
    file: "a.c",
    lines: ["char q;"],
    at: 1,
    newText: r`char q = '\"', a = '\'', n = '\n';`,
  },
  {
    name: "a Python line continuation",
    file: "a.py",
    lines: ["x = 1"],
    at: 1,
    newText: "x = 1 + \\\n    2",
  },
  {
    name: "a doubled backslash in a regex",
    file: "a.js",
    lines: ["let re;"],
    at: 1,
    newText: r`let re = /\\d+/;`,
  },
  {
    name: "markdown about escapes, in backticks",
    file: "README.md",
    lines: ["# Notes", "", "Text."],
    at: 3,
    newText: 'Write `\\n` for a line break and `\\"` for a quote.',
  },
  {
    name: "several real lines, each with strings holding escapes",
    file: "a.js",
    lines: ["function f() {", "  return 1;", "}"],
    at: 2,
    newText: r`  const out = ["a\n", 'b\t', "\"c\""];` + "\n" + r`  return out.join("\n");`,
  },
  {
    name: "a Windows path's backslashes doubled in a string (a real fix)",
    file: "a.js",
    lines: [r`const p = "C:\new\table";`],
    at: 1,
    newText: r`const p = "C:\\new\\table";`,
  },
  {
    name: "a regex made to match a backslash, over one that had none",
    file: "a.js",
    lines: ["const re = /a/;"],
    at: 1,
    newText: r`const re = /^\\\\+$/;`,
  },
  {
    name: "a regex with doubled and single backslashes",
    file: "a.js",
    lines: [r`const re = /\d+\.\w/;`],
    at: 1,
    newText: r`const re = /\\d+\.\w\\/;`,
  },
  {
    name: "a comment about line breaks",
    file: "a.js",
    lines: ["const a = 1;"],
    at: 1,
    newText: r`// lines end in \n, or \r\n on Windows; don't split on \t`,
    insert: true,
  },
  {
    name: "a doc comment line inside an open block comment",
    file: "a.js",
    lines: ["/**", " * Whitespace:", " */", "export const WS = 1;"],
    at: 2,
    newText: r` *   tab, \r, and \n).`,
    insert: true,
  },
  {
    name: "an inline block comment",
    file: "a.js",
    lines: ["let nl;"],
    at: 1,
    newText: r`let nl = ch === 10 /*\n*/ || ch === 13; /* \"q\" */`,
  },
  {
    name: "a line inside a template literal open above",
    file: "help.js",
    lines: ["const help = `usage:", "  --a   first", "`;"],
    at: 2,
    newText: r`  --b   second\n  --c   third \"quoted\"`,
    insert: true,
  },
  {
    name: "templates nested in a template",
    file: "a.js",
    lines: ["let out;"],
    at: 1,
    newText: 'let out = `${err ? `\\n${err}` : ""}\\n`;',
  },
  {
    name: "a line inside a Python docstring",
    file: "a.py",
    lines: ["def split(s):", '    """Split s on', '    """', "    return s"],
    at: 2,
    newText: r`    each \n and \t, not on \"quoted\" ones.`,
    insert: true,
  },
  {
    name: "a shell script whose lines around already escape quotes",
    file: "run.sh",
    lines: ["#!/bin/sh", r`echo \"$HOME\"`, "echo done"],
    at: 3,
    newText: r`echo \"$USER\"`,
  },
  {
    name: "Haskell lambdas where the lines around have one too",
    file: "Main.hs",
    lines: [r`double = map (\n -> n * 2)`, "triple = id"],
    at: 2,
    newText: r`triple = map (\n -> n * 3)`,
  },
  {
    name: "LaTeX umlauts where the lines around have one too",
    file: "refs.bib",
    lines: [r`author = {M\"uller},`, "title = {x},"],
    at: 2,
    newText: r`title = {\"Uber},`,
  },
];

const OVER_ESCAPED: readonly (Case & { readonly meant: string })[] = [
  {
    name: "escaped double quotes",
    file: "a.js",
    lines: ['if (a === "x") {', "  go();", "}"],
    at: 1,
    newText: r`if (a !== \"x\") {`,
    meant: 'if (a !== "x") {',
  },
  {
    name: "escaped single quotes",
    file: "a.js",
    lines: ["import x from 'y';"],
    at: 1,
    newText: r`import x from \'z\';`,
    meant: "import x from 'z';",
  },
  {
    name: "lines flattened with \\n",
    file: "a.js",
    lines: ["function f() {", "  const a = 1;", "}"],
    at: 2,
    newText: r`  const a = 1;\n  const b = 2;`,
    meant: "  const a = 1;\n  const b = 2;",
  },
  {
    name: "one line break of several written as \\n beside real ones",
    file: "a.js",
    lines: ["function f() {", "  const a = 1;", "}"],
    at: 2,
    newText: `  const a = 2;\n  const b = 3;${r`\n`}  return a;`,
    meant: "  const a = 2;\n  const b = 3;\n  return a;",
  },
  {
    name: "a doc-comment line indented with \\t written out",
    file: "a.js",
    lines: ["/**", " * one", " */", "run();"],
    at: 2,
    newText: r`\t* two`,
    meant: "\t* two",
  },
  {
    name: "an indent written as \\t",
    file: "a.js",
    lines: ["function f() {", "  return 0;", "}"],
    at: 2,
    newText: r`\treturn 1;`,
    meant: "\treturn 1;",
  },
  {
    name: "\\n and \\t written out",
    file: "a.c",
    lines: ["int f(int x) {", "  return 0;", "}"],
    at: 1,
    newText: r`  int y = x;\n\tif (y) return 1;`,
    insert: true,
    meant: "  int y = x;\n\tif (y) return 1;",
  },
  {
    name: "Python flattened after a colon",
    file: "a.py",
    lines: ["x = 1"],
    at: 1,
    newText: r`def f():\n    return 1`,
    meant: "def f():\n    return 1",
  },
  {
    name: "escaped quotes on one of several real lines",
    file: "a.js",
    lines: ["function f() {", "  return 1;", "}"],
    at: 2,
    newText: `  const a = 1;\n${r`  return \"a\" + a;`}`,
    meant: '  const a = 1;\n  return "a" + a;',
  },
  {
    name: "every backslash of a regex doubled",
    file: "a.js",
    lines: ["function f(s) {", r`  var enclosure = /[\{\[].*[\}\]]$/;`, "}"],
    at: 2,
    newText: r`  var enclosure = /[\\{\\[].*[\\}\\]]+$/;`,
    meant: r`  var enclosure = /[\{\[].*[\}\]]+$/;`,
  },
  {
    name: "a comment and code flattened together",
    file: "a.js",
    lines: ["function f() {", "  return 0;", "}"],
    at: 2,
    newText: r`  // one, not zero\n  return 1;`,
    meant: "  // one, not zero\n  return 1;",
  },
  {
    name: "a contraction escaped in a comment",
    file: "a.js",
    lines: ["// the turn", "run();"],
    at: 1,
    newText: r`// the model\'s turn`,
    meant: "// the model's turn",
  },
  {
    name: "a doc comment flattened",
    file: "a.js",
    lines: ["export const A = 1;"],
    at: 1,
    newText: r`/**\n * The answer.\n */`,
    insert: true,
    meant: "/**\n * The answer.\n */",
  },
  {
    name: "a flattened payload in a file whose strings hold \\n",
    file: "a.js",
    lines: ['console.log("a\\nb");', "run();", 'const s = "\\"q\\"";'],
    at: 2,
    newText: r`run();\nstop();`,
    meant: "run();\nstop();",
  },
];

async function attempt(c: Case, extra: Record<string, unknown> = {}) {
  const t = await setup();
  const path = join(t.dir, c.file);
  const before = `${c.lines.join("\n")}\n`;
  await writeFile(path, before);
  const read = expectOk(await t.read({ path: c.file }));
  const tag = tagOf(read, c.at);
  const op = c.insert ? "insert_after" : "replace_line";
  const result = await t.edit({ path: c.file, edits: [{ op, tag, new_text: c.newText }], ...extra });
  const expected = [...c.lines];
  expected.splice(c.insert ? c.at : c.at - 1, c.insert ? 0 : 1, c.newText);
  return { result, before, expected: `${expected.join("\n")}\n`, after: await readFile(path, "utf8") };
}

describe("over-escaped new_text", () => {
  it.each(LEGITIMATE)("writes $name exactly as sent", async (c) => {
    const { result, expected, after } = await attempt(c);
    expectOk(result);
    expect(after).toBe(expected);
  });

  it.each(OVER_ESCAPED)("refuses $name and writes nothing", async (c) => {
    const { result, before, after } = await attempt(c);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("InvalidInput");
    expect(result.text).toContain("looks JSON-escaped twice, so nothing was written");
    expect(result.text).toContain(`edit 1 (line ${c.at})`);
    expect(result.text).toContain('"verbatim": true beside "edits"');
    expect(after).toBe(before);
    // Resent the way the error asks, it goes through.
    const t = await setup();
    await writeFile(join(t.dir, c.file), before);
    const tag = tagOf(expectOk(await t.read({ path: c.file })), c.at);
    const op = c.insert ? "insert_after" : "replace_line";
    expectOk(await t.edit({ path: c.file, edits: [{ op, tag, new_text: c.meant }] }));
  });

  it.each(OVER_ESCAPED)("writes $name as sent with verbatim: true", async (c) => {
    const { result, expected, after } = await attempt(c, { verbatim: true });
    expectOk(result);
    expect(after).toBe(expected);
  });

  it.each([
    {
      name: "a Haskell lambda",
      file: "Main.hs",
      lines: ["f = id"],
      at: 1,
      newText: r`f = map (\n -> n * 2)`,
    },
    {
      name: "a LaTeX umlaut",
      file: "refs.bib",
      lines: ["author = {x},"],
      at: 1,
      newText: r`author = {M\"uller},`,
    },
  ])("refuses $name with no such line around, and verbatim: true writes it", async (c) => {
    expect((await attempt(c)).result.ok).toBe(false);
    const { result, expected, after } = await attempt(c, { verbatim: true });
    expectOk(result);
    expect(after).toBe(expected);
  });

  it("names every over-escaped edit of a call and keeps the message bounded", async () => {
    const t = await setup();
    const lines = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`);
    await writeFile(join(t.dir, "many.js"), `${lines.join("\n")}\n`);
    const read = expectOk(await t.read({ path: "many.js" }));
    const edits = Array.from({ length: 8 }, (_, i) => ({
      op: "replace_line",
      tag: tagOf(read, i * 5 + 1),
      new_text: `${"x".repeat(300)} = \\"${i}\\";`,
    }));
    const result = await t.edit({ path: "many.js", edits });
    expect(result.ok).toBe(false);
    expect(result.text).toContain("edit 1 (line 1)");
    expect(result.text).toContain("edit 5 (line 21)");
    expect(result.text).toContain("and 3 more");
    expect(result.text.length).toBeLessThan(2_000);
  });
});
