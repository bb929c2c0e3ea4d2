import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness, type Message, textOf } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { createHashlineTools } from "../src/index.js";
import { expectOk, hashlines, setup, tagOf } from "./helpers.js";

const SOURCE = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];

async function fixture() {
  const t = await setup();
  const file = join(t.dir, "a.txt");
  const original = `${SOURCE.join("\n")}\n`;
  await writeFile(file, original);
  const read = expectOk(await t.read({ path: "a.txt" }));
  const tag = (line: number) => tagOf(read, line);
  return { ...t, original, tag, content: () => readFile(file, "utf8") };
}

const HEX = "0123456789abcdef";
const oneOff = (tag: string) => {
  const swap = HEX[(HEX.indexOf(tag[7] as string) + 1) % 16] as string;
  return tag.slice(0, 7) + swap;
};

describe("mistaken tags are refused with what to send instead", () => {
  it("refuses a tag copied from the next row under this row's number, naming both lines and fresh tags", async () => {
    const f = await fixture();
    const result = await f.edit({
      path: "a.txt",
      edits: [{ op: "replace_line", tag: `3 ${f.tag(4)}`, new_text: "GAMMA" }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("Conflict");
    expect(await f.content()).toBe(f.original);
    expect(result.text).toContain(`tag ${f.tag(4)} belongs to line 4, not line 3`);
    expect(result.text).toContain(`line 3 (tag ${f.tag(3)})`);
    expect(result.text).toContain(`line 4 (tag ${f.tag(4)})`);
    const shown = hashlines(result.text);
    expect(shown.get(3)?.text).toBe("gamma");
    expect(shown.get(4)?.text).toBe("delta");
    // The full prefix as read_file shows it ("   3 <tag> | text") is read the same way.
    const echoed = await f.edit({
      path: "a.txt",
      edits: [{ op: "delete_line", tag: `   2 ${f.tag(1)} | alpha` }],
    });
    expect(echoed.ok).toBe(false);
    // With the number right, or no number at all, the same tag is accepted.
    expectOk(
      await f.edit({
        path: "a.txt",
        edits: [{ op: "replace_line", tag: `4 ${f.tag(4)}`, new_text: "DELTA" }],
      }),
    );
    expect(await f.content()).toBe("alpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\n");
  });

  it("names the line whose tag is one character away from an unknown tag", async () => {
    const f = await fixture();
    const result = await f.edit({
      path: "a.txt",
      edits: [{ op: "replace_line", tag: oneOff(f.tag(5)), new_text: "EPSILON" }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.text).toContain(`did you mean line 5 (tag ${f.tag(5)})?`);
    expect(hashlines(result.text).get(5)?.tag).toBe(f.tag(5));
    expect(await f.content()).toBe(f.original);
    // A dropped or doubled character is one character away too.
    for (const tag of [f.tag(6).slice(1), `${f.tag(6)}${f.tag(6).at(-1)}`]) {
      const off = await f.edit({ path: "a.txt", edits: [{ op: "delete_line", tag }] });
      expect(off.ok).toBe(false);
      if (!off.ok) expect(off.text).toContain(`did you mean line 6 (tag ${f.tag(6)})?`);
    }
    // A tag far from every shown tag gets no guess.
    const far = await f.edit({ path: "a.txt", edits: [{ op: "delete_line", tag: "00000000" }] });
    expect(far.ok).toBe(false);
    if (!far.ok) expect(far.text).not.toContain("did you mean");
  });
});

describe("pasted display prefixes", () => {
  it("are stripped when every line of new_text carries one", async () => {
    const f = await fixture();
    const text = expectOk(
      await f.edit({
        path: "a.txt",
        edits: [
          {
            op: "replace_line",
            tag: f.tag(2),
            new_text: `   2 ${f.tag(2)} | BETA\n   3 ${f.tag(3)} | beta2`,
          },
        ],
      }),
    );
    expect(await f.content()).toBe("alpha\nBETA\nbeta2\ngamma\ndelta\nepsilon\nzeta\neta\n");
    expect(text).toContain("removed the");
  });

  it("are stripped from the first line alone when that line and tag are one this run was shown", async () => {
    const f = await fixture();
    const text = expectOk(
      await f.edit({
        path: "a.txt",
        edits: [
          {
            op: "replace_range",
            start_tag: f.tag(2),
            end_tag: f.tag(3),
            new_text: `   2 ${f.tag(2)} | BETA\ngamma`,
          },
        ],
      }),
    );
    expect(await f.content()).toBe("alpha\nBETA\ngamma\ndelta\nepsilon\nzeta\neta\n");
    expect(text).toContain('removed the "<n> <tag> | " prefix pasted into new_text');
  });

  it("are refused when no read showed that line with that tag, and written with verbatim", async () => {
    const f = await fixture();
    const lookalike = "  12 0badc0de | x";
    const refused = await f.edit({
      path: "a.txt",
      edits: [{ op: "replace_line", tag: f.tag(2), new_text: `${lookalike}\nbeta2` }],
    });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.kind).toBe("InvalidInput");
    expect(refused.text).toContain("line 1 of new_text begins with");
    expect(refused.text).toContain('"verbatim": true');
    expect(await f.content()).toBe(f.original);
    expectOk(
      await f.edit({
        path: "a.txt",
        edits: [{ op: "replace_line", tag: f.tag(2), new_text: `${lookalike}\nbeta2` }],
        verbatim: true,
      }),
    );
    expect(await f.content()).toBe(`alpha\n${lookalike}\nbeta2\ngamma\ndelta\nepsilon\nzeta\neta\n`);
  });
});

describe("tags that name no shown line, named with the nearest real ones", () => {
  it("takes two swapped characters as one character away", async () => {
    const f = await fixture();
    const tag = f.tag(5);
    const i = [...tag].findIndex((c, k) => k < 7 && c !== tag[k + 1]);
    const swapped = `${tag.slice(0, i)}${tag[i + 1]}${tag[i]}${tag.slice(i + 2)}`;
    const result = await f.edit({
      path: "a.txt",
      edits: [{ op: "replace_line", tag: swapped, new_text: "E" }],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.text).toContain(`did you mean line 5 (tag ${tag})?`);
    expect(await f.content()).toBe(f.original);
  });

  it("reads a bare line number as one, names that line's tag, and never edits by it", async () => {
    const f = await fixture();
    const result = await f.edit({ path: "a.txt", edits: [{ op: "replace_line", tag: "4", new_text: "D" }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.text).toContain(`"4": a line number, not a tag; line 4 is now tag ${f.tag(4)}`);
    expect(hashlines(result.text).get(4)?.tag).toBe(f.tag(4));
    expect(await f.content()).toBe(f.original);
    const past = await f.edit({ path: "a.txt", edits: [{ op: "delete_line", tag: "40" }] });
    expect(past.ok).toBe(false);
    if (!past.ok) expect(past.text).toContain("past the end (the file has 7 lines)");
    // The tag it names works at once, without another read.
    expectOk(await f.edit({ path: "a.txt", edits: [{ op: "replace_line", tag: f.tag(4), new_text: "D" }] }));
    expect(await f.content()).toBe("alpha\nbeta\ngamma\nD\nepsilon\nzeta\neta\n");
  });

  it("names the lines most like the new text for an invented tag, and nothing when none is close", async () => {
    const f = await fixture();
    const result = await f.edit({
      path: "a.txt",
      edits: [{ op: "replace_line", tag: "0f0f0f0f", new_text: "epsilon!" }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.text).toContain(`the lines most like your new text are line 5 (tag ${f.tag(5)})`);
    expect(hashlines(result.text).get(5)?.text).toBe("epsilon");
    const none = await f.edit({
      path: "a.txt",
      edits: [{ op: "replace_line", tag: "0f0f0f0f", new_text: "qqqqqq" }],
    });
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.text).not.toContain("most like");
    expect(await f.content()).toBe(f.original);
  });
});

describe("a successful edit", () => {
  it("refuses new text that repeats the line beside it, and writes it with verbatim, noted", async () => {
    const f = await fixture();
    const edits = [{ op: "replace_line", tag: f.tag(4), new_text: "gamma\nDELTA\nepsilon" }] as const;
    const refused = await f.edit({ path: "a.txt", edits: [...edits] });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.kind).toBe("InvalidInput");
    expect(refused.text).toContain('the first new line repeats line 3 just above it ("gamma")');
    expect(refused.text).toContain('the last new line repeats line 5 just below it ("epsilon")');
    expect(refused.text).toContain("leave it out of new_text");
    expect(await f.content()).toBe(f.original);
    const text = expectOk(await f.edit({ path: "a.txt", edits: [...edits], verbatim: true }));
    expect(await f.content()).toBe("alpha\nbeta\ngamma\ngamma\nDELTA\nepsilon\nepsilon\nzeta\neta\n");
    expect(text).toContain("repeats line 3 just above it");
    const shown = hashlines(text);
    expect([...shown.keys()]).toEqual([2, 3, 4, 5, 6, 7, 8]);
  });

  it("does not warn when the repeat was already in the file, or the line is blank", async () => {
    const t = await setup();
    await writeFile(join(t.dir, "b.txt"), "x\nx\n\ny\n");
    const read = expectOk(await t.read({ path: "b.txt" }));
    const text = expectOk(
      await t.edit({
        path: "b.txt",
        edits: [
          { op: "replace_line", tag: tagOf(read, 2), new_text: "x" + "" },
          { op: "insert_after", tag: tagOf(read, 3), new_text: "" },
        ],
      }),
    );
    expect(text).not.toContain("repeats");
  });
});

describe("in a run", () => {
  it("a scripted model recovers from a row-shifted tag using only the error", async () => {
    const { dir, cleanup } = await tempWorkspace("bridle-hashline-recovery-");
    try {
      await writeFile(join(dir, "n.txt"), "one\ntwo\nthree\n");
      const last = (messages: readonly Message[]) => {
        const found = messages.findLast((m) => m.role === "tool");
        return found && found.role === "tool" ? textOf(found.content) : "";
      };
      const model = new ScriptedModel([
        { toolCalls: [{ name: "read_file", arguments: { path: "n.txt" } }] },
        ({ messages }) => ({
          toolCalls: [
            {
              name: "edit_file",
              arguments: {
                path: "n.txt",
                edits: [{ op: "replace_line", tag: `2 ${tagOf(last(messages), 3)}`, new_text: "TWO" }],
              },
            },
          ],
        }),
        ({ messages }) => ({
          toolCalls: [
            {
              name: "edit_file",
              arguments: {
                path: "n.txt",
                edits: [{ op: "replace_line", tag: tagOf(last(messages), 2), new_text: "TWO" }],
              },
            },
          ],
        }),
        { text: "done" },
      ]);
      const harness = new Harness({ model, tools: createHashlineTools(), workspace: dir });
      const result = await harness.run({ prompt: "capitalise two" });
      const kinds = result.messages
        .filter((m) => m.role === "tool")
        .map((m) => m.role === "tool" && (m.errorKind ?? "ok"));
      expect(kinds).toEqual(["ok", "Conflict", "ok"]);
      expect(await readFile(join(dir, "n.txt"), "utf8")).toBe("one\nTWO\nthree\n");
    } finally {
      await cleanup();
    }
  });
});
