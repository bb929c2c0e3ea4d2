import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPatch, type ToleranceKind } from "../src/index.js";
import { tempDir, wrapPatch } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, "note.txt"), "alpha\nbeta\ngamma\n");
});
afterEach(() => cleanup());

const body = "*** Update File: note.txt\n@@\n alpha\n-beta\n+BETA\n gamma";
const fixed = "alpha\nBETA\ngamma\n";

async function applied(patch: string): Promise<ToleranceKind[]> {
  const result = await applyPatch(patch, { root: dir });
  expect(await readFile(join(dir, "note.txt"), "utf8")).toBe(fixed);
  return result.tolerances.map((tolerance) => tolerance.kind);
}

describe("each tolerance applies and is reported", () => {
  it("none for an exact patch", async () => {
    expect(await applied(wrapPatch(body))).toEqual([]);
  });

  it("a heredoc around the patch", async () => {
    expect(await applied(`apply_patch <<'EOF'\n${wrapPatch(body)}EOF\n`)).toEqual(["heredoc_wrapper"]);
    await writeFile(join(dir, "note.txt"), "alpha\nbeta\ngamma\n");
    expect(await applied(`apply_patch <<"PATCH"\n${wrapPatch(body)}PATCH`)).toEqual(["heredoc_wrapper"]);
    await writeFile(join(dir, "note.txt"), "alpha\nbeta\ngamma\n");
    expect(await applied(`<<'EOF'\n${wrapPatch(body)}EOF\n`)).toEqual(["heredoc_wrapper"]);
  });

  it("a markdown fence around the patch, and a fence around a heredoc", async () => {
    expect(await applied(`\`\`\`diff\n${wrapPatch(body)}\`\`\`\n`)).toEqual(["markdown_fence"]);
    await writeFile(join(dir, "note.txt"), "alpha\nbeta\ngamma\n");
    expect(await applied(`\`\`\`bash\napply_patch <<EOF\n${wrapPatch(body)}EOF\n\`\`\``)).toEqual([
      "markdown_fence",
      "heredoc_wrapper",
    ]);
  });

  it("a missing first @@", async () => {
    expect(await applied(wrapPatch("*** Update File: note.txt\n alpha\n-beta\n+BETA\n gamma"))).toEqual([
      "missing_first_hunk_header",
    ]);
  });

  it("trailing whitespace on marker lines", async () => {
    const patch =
      "*** Begin Patch  \n*** Update File: note.txt \n@@ \n alpha\n-beta\n+BETA\n gamma\n*** End Patch\t\n";
    const kinds = await applied(patch);
    expect(new Set(kinds)).toEqual(new Set(["marker_whitespace"]));
    expect(kinds).toHaveLength(4);
  });

  it("trailing whitespace on context lines, both ways", async () => {
    expect(
      await applied(wrapPatch("*** Update File: note.txt\n@@\n alpha   \n-beta\t\n+BETA\n gamma")),
    ).toEqual(["context_trailing_whitespace"]);
    await writeFile(join(dir, "note.txt"), "alpha  \nbeta\ngamma\n");
    const result = await applyPatch(wrapPatch(body), { root: dir });
    // The context line keeps the file's own text, trailing spaces and all.
    expect(await readFile(join(dir, "note.txt"), "utf8")).toBe("alpha  \nBETA\ngamma\n");
    expect(result.tolerances.map((tolerance) => tolerance.kind)).toEqual(["context_trailing_whitespace"]);
  });

  it("Unicode dashes, quotes and non-breaking spaces in context", async () => {
    await writeFile(join(dir, "quote.txt"), "He said \u201cwait\u201d \u2014 it\u2019s\u00a0late\nold\n");
    const result = await applyPatch(
      wrapPatch('*** Update File: quote.txt\n@@\n He said "wait" - it\'s late\n-old\n+new'),
      { root: dir },
    );
    expect(await readFile(join(dir, "quote.txt"), "utf8")).toBe(
      "He said \u201cwait\u201d \u2014 it\u2019s\u00a0late\nnew\n",
    );
    expect(result.tolerances).toEqual([{ kind: "context_punctuation", path: "quote.txt", patchLine: 3 }]);
    expect(result.summary).toContain("Unicode dashes, quotes and spaces");
  });

  it("ASCII in the file, typographic punctuation in the patch", async () => {
    await writeFile(join(dir, "code.js"), "// don't -- change\nlet x = 1;\n");
    const result = await applyPatch(
      wrapPatch("*** Update File: code.js\n@@\n // don\u2019t \u2013\u2013 change\n-let x = 1;\n+let x = 2;"),
      { root: dir },
    );
    expect(await readFile(join(dir, "code.js"), "utf8")).toBe("// don't -- change\nlet x = 2;\n");
    expect(result.tolerances.map((tolerance) => tolerance.kind)).toEqual(["context_punctuation"]);
  });

  it("an empty line inside a chunk is an empty context line", async () => {
    await writeFile(join(dir, "gap.txt"), "one\n\ntwo\n");
    const result = await applyPatch(wrapPatch("*** Update File: gap.txt\n@@\n one\n\n-two\n+TWO"), {
      root: dir,
    });
    expect(await readFile(join(dir, "gap.txt"), "utf8")).toBe("one\n\nTWO\n");
    expect(result.tolerances.map((tolerance) => tolerance.kind)).toEqual(["blank_context_line"]);
  });

  it("a patch sent with CRLF line breaks", async () => {
    expect(await applied(wrapPatch(body).replaceAll("\n", "\r\n"))).toEqual(["crlf_patch"]);
  });

  it("a heredoc whose closing word differs is not a wrapper", async () => {
    await expect(applyPatch(`apply_patch <<'EOF'\n${wrapPatch(body)}END\n`, { root: dir })).rejects.toThrow(
      /must start with "\*\*\* Begin Patch"/,
    );
  });

  it("does not forgive what is not on the list: leading whitespace differences in context", async () => {
    await expect(
      applyPatch(wrapPatch("*** Update File: note.txt\n@@\n   alpha\n-beta\n+BETA"), { root: dir }),
    ).rejects.toThrow(/were not found/);
    expect(await readFile(join(dir, "note.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
  });

  it("exact beats tolerant: an exact match is preferred over a looser one elsewhere", async () => {
    await writeFile(join(dir, "two.txt"), "x = 1  \ny\nx = 1\ny\n");
    const result = await applyPatch(wrapPatch("*** Update File: two.txt\n@@\n x = 1\n-y\n+Y"), { root: dir });
    expect(await readFile(join(dir, "two.txt"), "utf8")).toBe("x = 1  \ny\nx = 1\nY\n");
    expect(result.tolerances).toEqual([]);
  });
});
