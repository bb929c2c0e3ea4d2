import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectOk, setup, tagOf } from "./helpers.js";

describe("racing edits", () => {
  it("lets exactly one of two racing edits of the same line win, and loses neither's file state", async () => {
    const t = await setup();
    const file = join(t.dir, "race.txt");
    await writeFile(file, "a\nb\nc\n");
    const read = expectOk(await t.read({ path: "race.txt" }));
    const results = await Promise.all(
      ["left", "right"].map((word) =>
        t.edit({ path: "race.txt", edits: [{ op: "replace_line", tag: tagOf(read, 2), new_text: word }] }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toMatchObject([{ kind: "Conflict" }]);
    const content = await readFile(file, "utf8");
    expect(["a\nleft\nc\n", "a\nright\nc\n"]).toContain(content);
  });

  it("applies racing edits of different lines one after the other when the tags still hold", async () => {
    const t = await setup();
    const file = join(t.dir, "race.txt");
    await writeFile(file, "a\nb\nc\nd\n");
    const read = expectOk(await t.read({ path: "race.txt" }));
    const results = await Promise.all([
      t.edit({ path: "race.txt", edits: [{ op: "replace_line", tag: tagOf(read, 1), new_text: "A" }] }),
      t.edit({ path: "race.txt", edits: [{ op: "replace_line", tag: tagOf(read, 4), new_text: "D" }] }),
    ]);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await readFile(file, "utf8")).toBe("A\nb\nc\nD\n");
  });

  it("refuses the slower of two runs racing on one file, since the file changed under it", async () => {
    const t = await setup();
    const file = join(t.dir, "race.txt");
    await writeFile(file, "a\nb\nc\n");
    const readA = expectOk(await t.read({ path: "race.txt" }, "run-a"));
    const readB = expectOk(await t.read({ path: "race.txt" }, "run-b"));
    const results = await Promise.all([
      t.edit(
        { path: "race.txt", edits: [{ op: "replace_line", tag: tagOf(readA, 1), new_text: "from a" }] },
        "run-a",
      ),
      t.edit(
        { path: "race.txt", edits: [{ op: "replace_line", tag: tagOf(readB, 3), new_text: "from b" }] },
        "run-b",
      ),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const loser = results.find((r) => !r.ok);
    expect(loser).toMatchObject({ kind: "Conflict" });
    expect(loser?.text).toContain("changed on disk since you last read it");
    expect(["from a\nb\nc\n", "a\nb\nfrom b\n"]).toContain(await readFile(file, "utf8"));
  });

  it("survives many concurrent edits with every byte accounted for", async () => {
    const t = await setup();
    const file = join(t.dir, "many.txt");
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
    await writeFile(file, `${lines.join("\n")}\n`);
    const read = expectOk(await t.read({ path: "many.txt" }));
    // Same-length replacements never shift lines, so every edit's tag stays valid and all must land.
    const results = await Promise.all(
      lines.map((_, i) =>
        t.edit({
          path: "many.txt",
          edits: [{ op: "replace_line", tag: tagOf(read, i + 1), new_text: `LINE ${i + 1}` }],
        }),
      ),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(await readFile(file, "utf8")).toBe(`${lines.map((_, i) => `LINE ${i + 1}`).join("\n")}\n`);
  });
});
