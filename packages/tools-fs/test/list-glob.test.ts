import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { GlobDetails, ListDirDetails } from "../src/index.js";
import { fixture, text } from "./helpers.js";

describe("list_dir", () => {
  it("lists {name, kind} sorted by name", async () => {
    const fx = await fixture();
    await fx.files({ "b.txt": "", "a/x": "", ".hidden": "", "C.md": "" });
    await symlink("b.txt", join(fx.dir, "link"));
    const out = await fx.call<ListDirDetails>(fx.kit.listDir, { path: "." });
    const expected = [
      { name: ".hidden", kind: "file" },
      { name: "C.md", kind: "file" },
      { name: "a", kind: "dir" },
      { name: "b.txt", kind: "file" },
      { name: "link", kind: "symlink" },
    ];
    expect(JSON.parse(text(out))).toEqual(expected);
    expect(out.details).toEqual({ path: ".", entries: expected, total: 5, truncated: false });
  });

  it("is bounded, and answers a file or a missing folder clearly", async () => {
    const fx = await fixture({ maxListEntries: 3 });
    await fx.files(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, ""])));
    const out = await fx.call<ListDirDetails>(fx.kit.listDir, { path: "." });
    const [json, note] = text(out).split("\n");
    expect(JSON.parse(json ?? "")).toHaveLength(3);
    expect(note).toBe(
      "[7 more entries not shown (10 in all). Use glob with a pattern to find specific files.]",
    );
    expect(out.details?.truncated).toBe(true);
    expect((await fx.fail(fx.kit.listDir, { path: "f1" })).kind).toBe("InvalidInput");
    expect((await fx.fail(fx.kit.listDir, { path: "nope" })).kind).toBe("NotFound");
  });
});

describe("glob", () => {
  it("matches relative to the workspace, respects nested .gitignore files with negations, skips .git", async () => {
    const fx = await fixture();
    await fx.files({
      ".gitignore": "node_modules/\ndist\n*.log\n!keep.log\n",
      "src/a.ts": "",
      "src/b.test.ts": "",
      "src/gen/.gitignore": "*.ts\n!index.ts\n",
      "src/gen/out.ts": "",
      "src/gen/index.ts": "",
      "node_modules/dep/index.ts": "",
      "dist/a.ts": "",
      "debug.log": "",
      "keep.log": "",
      ".git/HEAD.ts": "",
      ".github/workflows/ci.yml": "",
    });
    const ts = await fx.call<GlobDetails>(fx.kit.glob, { pattern: "**/*.ts" });
    expect(ts.details?.files).toEqual(["src/a.ts", "src/b.test.ts", "src/gen/index.ts"]);
    expect(text(ts)).toBe("src/a.ts\nsrc/b.test.ts\nsrc/gen/index.ts");
    expect((await fx.call<GlobDetails>(fx.kit.glob, { pattern: "*.log" })).details?.files).toEqual([
      "keep.log",
    ]);
    expect((await fx.call<GlobDetails>(fx.kit.glob, { pattern: "**/*.yml" })).details?.files).toEqual([
      ".github/workflows/ci.yml",
    ]);
    // Overlapping alternatives list a file once.
    const overlapping = await fx.call<GlobDetails>(fx.kit.glob, { pattern: "{src,src/gen}/**/*.ts" });
    expect(overlapping.details?.files).toEqual(["src/a.ts", "src/b.test.ts", "src/gen/index.ts"]);
    const scoped = await fx.call<GlobDetails>(fx.kit.glob, { pattern: "*.ts", path: "src" });
    expect(scoped.details?.files).toEqual(["src/a.ts", "src/b.test.ts"]);
    expect(text(await fx.call(fx.kit.glob, { pattern: "**/*.rs" }))).toBe(
      "No files match **/*.rs in the workspace.",
    );
  });

  it("stops at its bound and says so", async () => {
    const fx = await fixture({ maxGlobResults: 5 });
    await fx.files(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`d/f${i}.txt`, ""])));
    const out = await fx.call<GlobDetails>(fx.kit.glob, { pattern: "**/*.txt" });
    expect(out.details?.files).toHaveLength(5);
    expect(out.details?.truncated).toBe(true);
    expect(text(out)).toContain("[Stopped at 5 files; more match. Narrow the pattern or the path.]");
  });

  it("does not follow symlinked folders and refuses escaping patterns", async () => {
    const fx = await fixture();
    await writeFile(join(fx.outside, "x.ts"), "");
    await mkdir(join(fx.dir, "inner"));
    await symlink(fx.outside, join(fx.dir, "inner/out"));
    expect((await fx.call<GlobDetails>(fx.kit.glob, { pattern: "**/*.ts" })).details?.files).toEqual([]);
    expect((await fx.fail(fx.kit.glob, { pattern: "/etc/*" })).kind).toBe("InvalidInput");
    expect((await fx.fail(fx.kit.glob, { pattern: "a/../../*" })).kind).toBe("InvalidInput");
  });

  it("never walks into a symlinked folder that leads outside, whatever the link or the pattern", async () => {
    const fx = await fixture();
    await mkdir(join(fx.outside, "deep"));
    await writeFile(join(fx.outside, "x.ts"), "");
    await writeFile(join(fx.outside, "deep/y.ts"), "");
    await fx.files({ "inner/keep.ts": "", "hop/.keep": "" });
    // Every way a folder link can lead out: absolute, relative, through a link that leads in, to the
    // workspace's parent, to the filesystem root.
    await symlink(fx.outside, join(fx.dir, "abs"));
    await symlink("../ws-evil", join(fx.dir, "rel"));
    await symlink("../abs", join(fx.dir, "hop/via"));
    await symlink("..", join(fx.dir, "parent"));
    await symlink("/", join(fx.dir, "root"));
    const links = ["abs", "rel", "hop/via", "parent", "root"];
    const patterns = (link: string) => [
      "**/*",
      "**/*.ts",
      `${link}/*`,
      `${link}/**`,
      `${link}/x.ts`,
      `${link}/deep/y.ts`,
      `${link}/ws-evil/x.ts`,
      `{${link},inner}/**/*.ts`,
      `${link}/*.{ts,js}`,
    ];
    for (const link of links) {
      for (const pattern of patterns(link)) {
        const files = (await fx.call<GlobDetails>(fx.kit.glob, { pattern })).details?.files;
        expect({
          pattern,
          files: files?.filter((file) => file !== "inner/keep.ts" && file !== "hop/.keep"),
        }).toEqual({
          pattern,
          files: [],
        });
      }
      expect((await fx.fail(fx.kit.glob, { pattern: "*", path: link })).kind).toBe("Denied");
      expect((await fx.fail(fx.kit.listDir, { path: link })).kind).toBe("Denied");
    }
    // Listed as links, not followed.
    const listed = (await fx.call<ListDirDetails>(fx.kit.listDir, { path: "." })).details?.entries;
    for (const link of ["abs", "rel", "parent", "root"]) {
      expect(listed).toContainEqual({ name: link, kind: "symlink" });
    }
  });
});
