import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Fixture, fixture } from "./helpers.js";

const content = (fx: Fixture, path: string) => readFile(join(fx.dir, path), "utf8");

// An inline snapshot: a template literal, where the lexer excuses every escape it sees.
const SNAPSHOT = [
  "test('parses', () => {",
  "  expect(parse(input)).toMatchInlineSnapshot(`",
  "    {",
  '      "mode": "exit",',
  '      "tag": "next",',
  "    }",
  "  `);",
  "});",
  "",
].join("\n");

async function readied(files: Record<string, string>) {
  const fx = await fixture();
  await fx.files(files);
  for (const path of Object.keys(files)) await fx.call(fx.kit.readFile, { path });
  return fx;
}

describe("slips in new_string that old_string gives away", () => {
  it("refuses escaped quotes inside a literal when old_string has the quotes themselves", async () => {
    const fx = await readied({ "s.test.js": SNAPSHOT });
    const failure = await fx.fail(fx.kit.editFile, {
      path: "s.test.js",
      old_string: '      "mode": "exit",',
      new_string: '      \\"mode\\": \\"enter\\",',
    });
    expect(failure.kind).toBe("InvalidInput");
    expect(failure.message).toContain('new_string has \\" where old_string has the character itself');
    expect(failure.message).toContain("which lands at line 4");
    expect(await content(fx, "s.test.js")).toBe(SNAPSHOT);
  });

  it("refuses a literal \\n standing for a line break of old_string, inside the literal", async () => {
    const fx = await readied({ "s.test.js": SNAPSHOT });
    const failure = await fx.fail(fx.kit.editFile, {
      path: "s.test.js",
      old_string: '      "mode": "exit",\n      "tag": "next",',
      new_string: '      "mode": "enter",\\n      "tag": "next",',
    });
    expect(failure.message).toContain("new_string has \\n where old_string has the character itself");
    expect(await content(fx, "s.test.js")).toBe(SNAPSHOT);
  });

  it("refuses typographic quotes where old_string has straight ones", async () => {
    const fx = await readied({ "k.js": "const kind = 'circle';\n" });
    const failure = await fx.fail(fx.kit.editFile, {
      path: "k.js",
      old_string: "const kind = 'circle';",
      new_string: "const kind = \u2018disc\u2019; // was circle",
    });
    expect(failure.message).toContain(
      "new_string has typographic quotes (\u2018 \u2019) where old_string has straight ones",
    );
    expect(failure.message).toContain("lands at line 1");
  });

  it("applies escapes and typographic quotes that are new text, not the old text retyped", async () => {
    const fx = await readied({ "k.js": "const kind = 'circle';\n" });
    await fx.call(fx.kit.editFile, {
      path: "k.js",
      old_string: "const kind = 'circle';",
      new_string: 'const kind = \'circle\'; // \u201cround\u201d\nconst note = "say \\"hi\\"\\n";',
    });
    expect(await content(fx, "k.js")).toBe(
      'const kind = \'circle\'; // \u201cround\u201d\nconst note = "say \\"hi\\"\\n";\n',
    );
  });

  it("lists every place an ambiguous old_string matches, up to sixty", async () => {
    const body = Array.from({ length: 30 }, (_, i) => `call(${i});\nreturn;\n`).join("");
    const fx = await readied({ "r.js": body });
    const failure = await fx.fail(fx.kit.editFile, {
      path: "r.js",
      old_string: "return;",
      new_string: "return 1;",
    });
    const lines = Array.from({ length: 30 }, (_, i) => 2 * i + 2).join(", ");
    expect(failure.message).toContain(`old_string matches 30 places (lines ${lines}).`);
  });
});
