import { describe, expect, it } from "vitest";
import { fileDiff, fileDiffsOf } from "../src/index.js";

describe("fileDiff", () => {
  it("gives the changed lines with their line numbers on each side", () => {
    const diff = fileDiff("a.txt", "one\ntwo\nthree\n", "one\nTWO\nthree\nfour\n");
    expect(diff).toEqual({
      path: "a.txt",
      change: "update",
      added: 2,
      removed: 1,
      hunks: [
        { oldStart: 2, newStart: 2, removed: ["two"], added: ["TWO"] },
        { oldStart: 4, newStart: 4, removed: [], added: ["four"] },
      ],
      omittedLines: 0,
    });
  });

  it("keeps at most maxLines changed lines, cutting the first hunk that does not fit, and counts the rest", () => {
    const before = "";
    const after = `${Array.from({ length: 50 }, (_, i) => `l${i}`).join("\n")}\n`;
    const diff = fileDiff("new.txt", before, after, { change: "add", maxLines: 10 });
    expect(diff.added).toBe(50);
    expect(diff.hunks).toHaveLength(1);
    expect(diff.hunks[0]?.added).toEqual(Array.from({ length: 10 }, (_, i) => `l${i}`));
    expect(diff.omittedLines).toBe(40);
  });

  it("a rename with no line changed still says where the file went", () => {
    const diff = fileDiff("old.txt", "x\n", "x\n", { movedTo: "new.txt" });
    expect(diff).toMatchObject({ movedTo: "new.txt", hunks: [], added: 0, removed: 0 });
  });
});

describe("fileDiffsOf", () => {
  it("reads well-formed diffs from a result's details and drops anything else", () => {
    const good = fileDiff("a.txt", "a\n", "b\n");
    expect(fileDiffsOf({ diffs: [good, { path: "x", change: "update", hunks: "no" }] })).toEqual([good]);
    expect(fileDiffsOf({ diffs: "nope" })).toEqual([]);
    expect(fileDiffsOf(undefined)).toEqual([]);
    expect(
      fileDiffsOf({ diffs: [{ ...good, hunks: [{ oldStart: 1, newStart: 1, removed: [1], added: [] }] }] }),
    ).toEqual([]);
  });
});
