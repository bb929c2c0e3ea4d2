import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectOk, setup, tagOf } from "./helpers.js";

const SOURCE = [
  "function area(shape) {",
  "  if (shape.kind === 'circle') {",
  "    return Math.PI * shape.r ** 2;",
  "  }",
  "  return shape.w * shape.h;",
  "}",
  "console.log(area({ kind: 'square', w: 2, h: 2 }));",
  '// kinds: "circle" and "square"',
];

async function fixture(eol = "\n") {
  const t = await setup();
  const file = join(t.dir, "area.js");
  const original = `${SOURCE.join(eol)}${eol}`;
  await writeFile(file, original);
  const read = expectOk(await t.read({ path: "area.js" }));
  const tag = (line: number) => tagOf(read, line);
  const refused = async (edits: Record<string, unknown>[]) => {
    const result = await t.edit({ path: "area.js", edits });
    expect(result.ok).toBe(false);
    if (result.ok) return "";
    expect(result.kind).toBe("InvalidInput");
    expect(await readFile(file, "utf8")).toBe(original);
    return result.text;
  };
  return { ...t, tag, refused, content: () => readFile(file, "utf8") };
}

describe("replacements whose new text gives away a slip are refused, naming the fix", () => {
  it("refuses a range one line too long, naming the end_tag to use and how to delete instead", async () => {
    const f = await fixture();
    const text = await f.refused([
      {
        op: "replace_range",
        start_tag: f.tag(2),
        end_tag: f.tag(4),
        new_text: "  if (shape.kind === 'disc') {\n    return Math.PI * shape.r ** 2;",
      },
    ]);
    expect(text).toContain("leaves out line 4");
    expect(text).toContain(`end the range at line 3 (end_tag \`${f.tag(3)}\`)`);
    expect(text).toContain(`delete_line (tag \`${f.tag(4)}\`)`);
  });

  it("refuses a range that starts a line early, naming the start_tag to use", async () => {
    const f = await fixture();
    const text = await f.refused([
      {
        op: "replace_range",
        start_tag: f.tag(1),
        end_tag: f.tag(3),
        new_text: "  if (shape.kind === 'circle') {\n    return Math.PI * shape.r * shape.r;",
      },
    ]);
    expect(text).toContain("leaves out line 1");
    expect(text).toContain(`start the range at line 2 (start_tag \`${f.tag(2)}\`)`);
  });

  it("refuses a range one line short whose last new line is the next line retyped", async () => {
    const f = await fixture();
    const text = await f.refused([
      {
        op: "replace_line",
        tag: f.tag(3),
        new_text: "    return Math.PI * shape.r * shape.r;\n  } // circle",
      },
    ]);
    expect(text).toContain("the last line of new_text is line 4");
    expect(text).toContain(`end_tag \`${f.tag(4)}\``);
  });

  it("refuses a line retyped without its indentation, showing it indented", async () => {
    const f = await fixture();
    const text = await f.refused([
      { op: "replace_line", tag: f.tag(5), new_text: "return shape.w * shape.h * 1;" },
    ]);
    expect(text).toContain("edit 1 (line 5): line 1 of new_text starts at column 0");
    expect(text).toContain('"  return shape.w * shape.h * 1;"');
  });

  it("refuses typographic quotes where the line has straight ones", async () => {
    const f = await fixture();
    const text = await f.refused([
      {
        op: "replace_line",
        tag: f.tag(2),
        new_text: "  if (shape.kind === \u2018circle\u2019 || shape.round) {",
      },
    ]);
    expect(text).toContain("edit 1 (line 2): new_text has typographic quotes (\u2018 \u2019)");
  });

  it("refuses an escape slip inside a string, where the lexer excuses it and the replaced line gives it away", async () => {
    const f = await fixture();
    const text = await f.refused([
      { op: "replace_line", tag: f.tag(8), new_text: '// kinds: \\"circle\\" and \\"square\\" (more later)' },
    ]);
    expect(text).toContain(
      'edit 1 (line 8): new_text has \\" where the line it replaces has the character itself',
    );
  });

  it("writes each of those when the call says verbatim, and the correct calls without a word", async () => {
    const f = await fixture();
    expectOk(
      await f.edit({
        path: "area.js",
        verbatim: true,
        edits: [{ op: "replace_line", tag: f.tag(5), new_text: "return shape.w * shape.h;" }],
      }),
    );
    expect((await f.content()).split("\n")[4]).toBe("return shape.w * shape.h;");
    const g = await fixture();
    expectOk(
      await g.edit({
        path: "area.js",
        edits: [
          {
            op: "replace_range",
            start_tag: g.tag(2),
            end_tag: g.tag(3),
            new_text: "  if (shape.kind === 'disc') {\n    return 3;",
          },
          { op: "replace_line", tag: g.tag(7), new_text: 'console.log("say \\"hi\\"\\n");' },
        ],
      }),
    );
    expect(await g.content()).toContain("  if (shape.kind === 'disc') {\n    return 3;\n  }\n");
    expect(await g.content()).toContain('console.log("say \\"hi\\"\\n");\n');
  });

  it("keeps a CRLF file's line breaks", async () => {
    const f = await fixture("\r\n");
    expectOk(
      await f.edit({
        path: "area.js",
        edits: [{ op: "replace_line", tag: f.tag(5), new_text: "  return 0;" }],
      }),
    );
    expect(await f.content()).toBe(`${SOURCE.map((l, i) => (i === 4 ? "  return 0;" : l)).join("\r\n")}\r\n`);
  });
});
