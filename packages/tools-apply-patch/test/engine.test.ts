import { chmod, lstat, mkdir, readFile, rename, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ToolFailure, Workspace } from "@bridle/core";
import { snapshotOf } from "@bridle/tools-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitAll } from "../src/commit.js";
import { runPatch } from "../src/engine.js";
import { applyPatch } from "../src/index.js";
import { snapshotTree, tempDir, wrapPatch } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(() => cleanup());

const read = (path: string) => readFile(join(dir, path), "utf8");
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error as ToolFailure,
  );

describe("line endings and final newlines are kept", () => {
  it("a CRLF file stays CRLF, added lines included", async () => {
    await writeFile(join(dir, "win.txt"), "one\r\ntwo\r\nthree\r\n");
    await applyPatch(wrapPatch("*** Update File: win.txt\n@@\n one\n-two\n+TWO\n+two and a half\n three"), {
      root: dir,
    });
    expect(await read("win.txt")).toBe("one\r\nTWO\r\ntwo and a half\r\nthree\r\n");
  });

  it("a file without a final newline keeps none, even when its last line changes", async () => {
    await writeFile(join(dir, "tail.txt"), "first\nlast");
    await applyPatch(wrapPatch("*** Update File: tail.txt\n@@\n first\n-last\n+LAST"), { root: dir });
    expect(await read("tail.txt")).toBe("first\nLAST");
    await applyPatch(wrapPatch("*** Update File: tail.txt\n@@\n LAST\n+after\n*** End of File"), {
      root: dir,
    });
    expect(await read("tail.txt")).toBe("first\nLAST\nafter");
  });

  it("a CRLF file without a final newline", async () => {
    await writeFile(join(dir, "both.txt"), "a\r\nb");
    await applyPatch(wrapPatch("*** Update File: both.txt\n@@\n-a\n+A\n b"), { root: dir });
    expect(await read("both.txt")).toBe("A\r\nb");
  });

  it("a BOM and the file's mode survive", async () => {
    await writeFile(join(dir, "run.sh"), "\ufeff#!/bin/sh\necho hi\n");
    await chmod(join(dir, "run.sh"), 0o750);
    await applyPatch(wrapPatch("*** Update File: run.sh\n@@\n #!/bin/sh\n-echo hi\n+echo bye"), {
      root: dir,
    });
    expect(await read("run.sh")).toBe("\ufeff#!/bin/sh\necho bye\n");
    expect((await stat(join(dir, "run.sh"))).mode & 0o777).toBe(0o750);
  });

  it("an empty added file, and lines added to an empty file end with a newline", async () => {
    await applyPatch(wrapPatch("*** Add File: empty.txt"), { root: dir });
    expect(await read("empty.txt")).toBe("");
    await applyPatch(wrapPatch("*** Update File: empty.txt\n@@\n+first line"), { root: dir });
    expect(await read("empty.txt")).toBe("first line\n");
  });
});

describe("moves and deletes", () => {
  it("moves with no chunk, keeping the bytes and mode", async () => {
    await writeFile(join(dir, "tool.sh"), "#!/bin/sh\r\nexit 0");
    await chmod(join(dir, "tool.sh"), 0o755);
    const result = await applyPatch(wrapPatch("*** Update File: tool.sh\n*** Move to: bin/tools/tool.sh"), {
      root: dir,
    });
    expect(await readFile(join(dir, "bin/tools/tool.sh"), "utf8")).toBe("#!/bin/sh\r\nexit 0");
    expect((await stat(join(dir, "bin/tools/tool.sh"))).mode & 0o777).toBe(0o755);
    await expect(lstat(join(dir, "tool.sh"))).rejects.toThrow();
    expect(result.files).toEqual([
      { path: "bin/tools/tool.sh", action: "moved", from: "tool.sh", linesAdded: 0, linesRemoved: 0 },
    ]);
    expect(result.summary).toBe(
      "Success. Updated the following files:\nM bin/tools/tool.sh (moved from tool.sh)",
    );
  });

  it("a move onto an existing file is refused and nothing moves", async () => {
    await writeFile(join(dir, "a.txt"), "a\n");
    await writeFile(join(dir, "b.txt"), "b\n");
    const before = await snapshotTree(dir);
    const error = await failureOf(
      applyPatch(wrapPatch("*** Update File: a.txt\n*** Move to: b.txt"), { root: dir }),
    );
    expect(error.message).toContain("b.txt already exists (the move of a.txt, patch line 2)");
    expect(error.message).toContain("has not been read in this run, so it is not replaced");
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it("delete then re-add under a new folder in one patch; a file touched twice is refused", async () => {
    await writeFile(join(dir, "gone.txt"), "bye\n");
    await applyPatch(wrapPatch("*** Delete File: gone.txt\n*** Add File: kept/new.txt\n+hello"), {
      root: dir,
    });
    expect(await snapshotTree(dir)).toEqual({
      "kept/": "",
      "kept/new.txt": Buffer.from("hello\n").toString("base64"),
    });
    const error = await failureOf(
      applyPatch(wrapPatch("*** Delete File: kept/new.txt\n*** Add File: kept/new.txt\n+again"), {
        root: dir,
      }),
    );
    expect(error.message).toContain("touches kept/new.txt twice");
  });

  it("a new file under a path that is a file is refused, at any depth", async () => {
    await writeFile(join(dir, "plain.txt"), "p\n");
    for (const body of ["*** Add File: plain.txt/inner.txt\n+x", "*** Add File: plain.txt/a/b.txt\n+x"]) {
      const error = await failureOf(applyPatch(wrapPatch(body), { root: dir }));
      expect(error.kind, body).toBe("InvalidInput");
      expect(error.message).toContain("plain.txt is a file, not a folder");
    }
    expect(await snapshotTree(dir)).toEqual({ "plain.txt": Buffer.from("p\n").toString("base64") });
  });

  it("a symbolic link is neither deleted nor moved (its target would be)", async () => {
    await writeFile(join(dir, "target.txt"), "t\n");
    await symlink("target.txt", join(dir, "link.txt"));
    for (const body of ["*** Delete File: link.txt", "*** Update File: link.txt\n*** Move to: moved.txt"]) {
      const error = await failureOf(applyPatch(wrapPatch(body), { root: dir }));
      expect(error.kind).toBe("Denied");
    }
    expect(await read("target.txt")).toBe("t\n");
  });
});

describe("all or nothing across files", () => {
  it("a later file's failing chunk leaves every earlier file byte for byte, and makes no folder", async () => {
    await writeFile(join(dir, "one.txt"), "keep\r\nme  \n");
    await writeFile(join(dir, "two.txt"), "two\n");
    await writeFile(join(dir, "three.txt"), "three\n");
    const before = await snapshotTree(dir);
    const patch = wrapPatch(
      [
        "*** Update File: one.txt\n@@\n-keep\n+KEEP",
        "*** Add File: brand/new/file.txt\n+x",
        "*** Delete File: two.txt",
        "*** Update File: three.txt\n*** Move to: moved/three.txt\n@@\n-three\n+THREE",
        "*** Update File: one.txt",
      ].join("\n"),
    );
    expect((await failureOf(applyPatch(patch, { root: dir }))).message).toContain("has no @@ chunk");
    const failing = patch
      .replace("*** Delete File: two.txt\n", "")
      .replace("*** Update File: one.txt\n*** End", "*** Update File: two.txt\n@@\n-nope\n+yes\n*** End");
    const error = await failureOf(applyPatch(failing, { root: dir }));
    expect(error.message).toContain("two.txt, chunk 1 of 1");
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it("a failure in the middle of the commit puts back every file already renamed", async () => {
    await writeFile(join(dir, "a.txt"), "a\n");
    await writeFile(join(dir, "b.txt"), "b\n");
    await writeFile(join(dir, "doomed.txt"), "d\n");
    const before = await snapshotTree(dir);
    const patch = wrapPatch(
      "*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new/deep/c.txt\n+c\n*** Update File: b.txt\n*** Move to: moved/b.txt\n@@\n-b\n+B\n*** Delete File: doomed.txt",
    );
    const workspace = new Workspace(dir);
    // Steps are: write a, write c, write moved/b, remove b, remove doomed. Fail at each one in turn.
    for (let failAt = 0; failAt < 5; failAt++) {
      const seen: string[] = [];
      const error = await failureOf(
        runPatch(patch, {
          workspace,
          maxFileBytes: 1 << 20,
          beforeStep: (index, target) => {
            seen.push(target);
            if (index === failAt) throw Object.assign(new Error("disk on fire"), { code: "EIO" });
          },
        }),
      );
      expect(error.kind).toBe("ToolError");
      expect(error.message).toContain("every file was restored");
      expect(seen).toHaveLength(failAt + 1);
      expect(await snapshotTree(dir)).toEqual(before);
    }
    await runPatch(patch, { workspace, maxFileBytes: 1 << 20 });
    expect(await read("a.txt")).toBe("A\n");
    expect(await read("moved/b.txt")).toBe("B\n");
    expect(await read("new/deep/c.txt")).toBe("c\n");
    expect(Object.keys(await snapshotTree(dir)).sort()).toEqual(
      ["a.txt", "moved/", "moved/b.txt", "new/", "new/deep/", "new/deep/c.txt"].sort(),
    );
  });

  it("a file created by someone else between the check and the commit is not overwritten", async () => {
    await writeFile(join(dir, "a.txt"), "a\n");
    const workspace = new Workspace(dir);
    const error = await failureOf(
      runPatch(wrapPatch("*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: racy.txt\n+mine"), {
        workspace,
        maxFileBytes: 1 << 20,
        beforeStep: async (index) => {
          if (index === 1) await writeFile(join(dir, "racy.txt"), "theirs\n");
        },
      }),
    );
    expect(error.kind).toBe("Conflict");
    expect(await read("racy.txt")).toBe("theirs\n");
    expect(await read("a.txt")).toBe("a\n");
  });
});

describe("concurrent patches", () => {
  it("patches to the same files at once all land: each is planned under the files' locks", async () => {
    const names = ["x.txt", "y.txt"];
    for (const name of names)
      await writeFile(join(dir, name), `${Array.from({ length: 12 }, (_, i) => `row ${i}`).join("\n")}\n`);
    const patches = Array.from({ length: 12 }, (_, i) =>
      wrapPatch(names.map((name) => `*** Update File: ${name}\n@@\n-row ${i}\n+row ${i} done`).join("\n")),
    );
    // Reversed name order in half the patches: locks taken in one global order cannot deadlock.
    const results = await Promise.all(
      patches.map((patch, i) =>
        applyPatch(
          i % 2 === 0
            ? patch
            : patch
                .replace(/x\.txt/g, "tmp")
                .replace(/y\.txt/g, "x.txt")
                .replace(/tmp/g, "y.txt"),
          {
            root: dir,
          },
        ),
      ),
    );
    expect(results).toHaveLength(12);
    for (const name of names) {
      expect(await read(name)).toBe(`${Array.from({ length: 12 }, (_, i) => `row ${i} done`).join("\n")}\n`);
    }
  });
});

describe("compare at commit", () => {
  it("a file replaced by someone else during the commit is left as they wrote it, the rest put back", async () => {
    await writeFile(join(dir, "a.txt"), "a\n");
    await writeFile(join(dir, "b.txt"), "b\n");
    const error = await failureOf(
      runPatch(wrapPatch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"), {
        workspace: new Workspace(dir),
        maxFileBytes: 1 << 20,
        beforeStep: async (index) => {
          if (index !== 0) return;
          // An editor saving b.txt the usual way: a new file renamed over the old one.
          await writeFile(join(dir, "b.editor"), "b from the editor\n");
          await rename(join(dir, "b.editor"), join(dir, "b.txt"));
        },
      }),
    );
    expect(error.kind).toBe("Conflict");
    expect(error.message).toContain("b.txt changed on disk while the patch was being applied");
    expect(await snapshotTree(dir)).toEqual({
      "a.txt": Buffer.from("a\n").toString("base64"),
      "b.txt": Buffer.from("b from the editor\n").toString("base64"),
    });
  });

  it("a file whose bytes differ from what the patch was planned against is not touched", async () => {
    await writeFile(join(dir, "c.txt"), "now\n");
    const planned = snapshotOf(await stat(join(dir, "c.txt"), { bigint: true }), Buffer.from("then\n"));
    const error = await failureOf(
      commitAll([
        { kind: "write", target: join(dir, "new.txt"), bytes: Buffer.from("n\n") },
        { kind: "write", target: join(dir, "c.txt"), bytes: Buffer.from("patched\n"), expected: planned },
      ]),
    );
    expect(error.kind).toBe("Conflict");
    expect(await snapshotTree(dir)).toEqual({ "c.txt": Buffer.from("now\n").toString("base64") });
  });
});

describe("the workspace policy", () => {
  it("refuses paths that escape, links that lead out, and secret files", async () => {
    const outside = await tempDir();
    try {
      await writeFile(join(outside.dir, "victim.txt"), "safe\n");
      await symlink(outside.dir, join(dir, "out"));
      await symlink(join(outside.dir, "victim.txt"), join(dir, "victim-link.txt"));
      await writeFile(join(dir, ".env"), "TOKEN=1\n");
      await mkdir(join(dir, ".ssh"));
      const cases = [
        "*** Add File: ../escape.txt\n+x",
        `*** Add File: ${join(outside.dir, "abs.txt")}\n+x`,
        "*** Add File: out/new.txt\n+x",
        "*** Add File: out/deeper/new.txt\n+x",
        "*** Update File: out/victim.txt\n@@\n-safe\n+owned",
        "*** Update File: victim-link.txt\n@@\n-safe\n+owned",
        "*** Delete File: out/victim.txt",
        "*** Update File: .env\n@@\n-TOKEN=1\n+TOKEN=2",
        "*** Add File: config/.env.production\n+X=1",
        "*** Add File: .ssh/id_ed25519\n+key",
        "*** Add File: ok.txt\n+fine\n*** Update File: ok2.txt\n*** Move to: ../../moved.txt",
      ];
      const before = await snapshotTree(dir);
      for (const body of cases) {
        const error = await failureOf(applyPatch(wrapPatch(body), { root: dir })).catch((thrown: unknown) => {
          throw new Error(`${body}: ${thrown}`);
        });
        expect(error, body).toBeInstanceOf(ToolFailure);
        expect(["Denied", "NotFound"], `${body}: ${error.message}`).toContain(error.kind);
      }
      expect(await snapshotTree(dir)).toEqual(before);
      expect(await readFile(join(outside.dir, "victim.txt"), "utf8")).toBe("safe\n");
      expect(Object.keys(await snapshotTree(outside.dir))).toEqual(["victim.txt"]);
    } finally {
      await outside.cleanup();
    }
  });

  it("allowSecrets lets the patch edit a .env file", async () => {
    await writeFile(join(dir, ".env"), "TOKEN=1\n");
    await applyPatch(wrapPatch("*** Update File: .env\n@@\n-TOKEN=1\n+TOKEN=2"), {
      root: dir,
      allowSecrets: true,
    });
    expect(await read(".env")).toBe("TOKEN=2\n");
  });
});

describe("bounded failures", () => {
  it("a 5 MB patch whose chunk does not fit gets a short error naming the closest lines", async () => {
    const lines = Array.from(
      { length: 250_000 },
      (_, index) => `line number ${index} of the big file, padded out a bit`,
    );
    await writeFile(join(dir, "big.txt"), `${lines.join("\n")}\n`);
    const wanted = lines.slice(120_000, 240_000).map((line) => ` ${line}`);
    wanted[1_000] = "-line number 121000 of the BIG file, padded out a bit";
    const patch = wrapPatch(`*** Update File: big.txt\n@@\n${wanted.join("\n")}\n+added`);
    expect(patch.length).toBeGreaterThan(5_000_000);
    const error = await failureOf(applyPatch(patch, { root: dir }));
    expect(error.message.length).toBeLessThan(4_200);
    expect(error.message).toContain("big.txt, chunk 1 of 1");
    expect(error.message).toMatch(/Closest in the file \(lines 120001-/);
    expect(error.message).toContain("120001\tline number 120000 of the big file, padded out a bit");
  });

  it("a 5 MB line in a malformed patch is quoted cut short", async () => {
    const error = await failureOf(
      applyPatch(wrapPatch(`*** Frobnicate: ${"x".repeat(5_000_000)}`), { root: dir }),
    );
    expect(error.kind).toBe("InvalidInput");
    expect(error.message.length).toBeLessThan(600);
  });

  it("an ambiguous chunk names its candidates with line numbers", async () => {
    await writeFile(join(dir, "dup.txt"), "x\nend\nx\nend\nx\nend\n");
    const error = await failureOf(
      applyPatch(wrapPatch("*** Update File: dup.txt\n@@\n x\n-end\n+END"), { root: dir }),
    );
    expect(error.message).toContain("match 3 places (starting at lines 1, 3, 5)");
    expect(error.message).toContain("     3\tx");
  });

  it("chunks out of order are named as such", async () => {
    await writeFile(join(dir, "order.txt"), "a\nb\nc\nd\n");
    const error = await failureOf(
      applyPatch(wrapPatch("*** Update File: order.txt\n@@\n c\n-d\n+D\n@@\n a\n-b\n+B"), { root: dir }),
    );
    expect(error.message).toContain("before the previous chunk");
  });

  it("an anchor that names no line says which line is closest", async () => {
    await writeFile(join(dir, "fn.py"), "def compute_total(x):\n    return x\n");
    const error = await failureOf(
      applyPatch(
        wrapPatch("*** Update File: fn.py\n@@ def compute_totals(x):\n-    return x\n+    return x + 1"),
        { root: dir },
      ),
    );
    expect(error.message).toContain("names no line of the file");
    expect(error.message).toContain("     1\tdef compute_total(x):");
  });

  it("a binary file is refused", async () => {
    await writeFile(join(dir, "blob.bin"), Buffer.from([0, 1, 2, 10, 0]));
    const error = await failureOf(
      applyPatch(wrapPatch("*** Update File: blob.bin\n@@\n-x\n+y"), { root: dir }),
    );
    expect(error.message).toContain("binary");
  });

  it("a patch over more than 256 files is refused before any is opened", async () => {
    const body = Array.from({ length: 257 }, (_, i) => `*** Add File: many/${i}.txt\n+${i}`).join("\n");
    const error = await failureOf(applyPatch(wrapPatch(body), { root: dir }));
    expect(error.message).toContain("changes 257 files, more than the 256");
    expect(await snapshotTree(dir)).toEqual({});
    await applyPatch(wrapPatch(body.slice(0, body.lastIndexOf("\n*** Add File"))), { root: dir });
    expect(Object.keys(await snapshotTree(join(dir, "many")))).toHaveLength(256);
    // And 256 updates at once: every file locked and held open until the one commit.
    const updates = Array.from(
      { length: 256 },
      (_, i) => `*** Update File: many/${i}.txt\n@@\n-${i}\n+${i}!`,
    );
    await applyPatch(wrapPatch(updates.join("\n")), { root: dir });
    expect(await read("many/255.txt")).toBe("255!\n");
  });

  it("malformed patches say which line to fix", async () => {
    const cases: [string, string][] = [
      ["", "it is empty"],
      ["*** Add File: a.txt\n+x", 'must start with "*** Begin Patch"'],
      ["*** Begin Patch\n*** Add File: a.txt\n+x\n", "was it cut off?"],
      [wrapPatch("*** Add File: a.txt\nno plus"), '(patch line 3): every line of a new file starts with "+"'],
      [wrapPatch("*** Update File: a.txt\n@@\n~weird"), "(patch line 4)"],
      [wrapPatch("*** Update File: a.txt\n@@\n same"), "changes nothing"],
      [wrapPatch("*** Delete File: a.txt\n-x"), "nothing may follow"],
      [wrapPatch("*** Add File: \n+x"), "needs a path"],
    ];
    for (const [patch, message] of cases) {
      const error = await failureOf(applyPatch(patch, { root: dir }));
      expect(error.kind, patch).toBe("InvalidInput");
      expect(error.message, patch).toContain(message);
    }
  });
});
