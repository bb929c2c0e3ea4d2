import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixture, text } from "./helpers.js";

describe("every tool goes through the workspace policy", () => {
  it("denies a symlink that points out of the workspace, for reading, writing, listing and searching", async () => {
    const fx = await fixture();
    await writeFile(join(fx.outside, "secret.txt"), "outside data\n");
    await symlink(join(fx.outside, "secret.txt"), join(fx.dir, "link.txt"));
    await symlink(fx.outside, join(fx.dir, "linkdir"));
    const { readFile: read, writeFile: write, editFile: edit, listDir, grep, glob } = fx.kit;
    expect((await fx.fail(read, { path: "link.txt" })).kind).toBe("Denied");
    expect((await fx.fail(write, { path: "link.txt", content: "x" })).kind).toBe("Denied");
    expect((await fx.fail(write, { path: "linkdir/new.txt", content: "x" })).kind).toBe("Denied");
    expect((await fx.fail(edit, { path: "link.txt", old_string: "outside", new_string: "x" })).kind).toBe(
      "Denied",
    );
    expect((await fx.fail(listDir, { path: "linkdir" })).kind).toBe("Denied");
    expect((await fx.fail(grep, { pattern: "outside", path: "linkdir" })).kind).toBe("Denied");
    // Walking the root does not follow links out either.
    expect(text(await fx.call(grep, { pattern: "outside data" }))).toContain("No matches");
    expect((await fx.call<{ files: string[] }>(glob, { pattern: "**/*.txt" })).details?.files).toEqual([]);
    expect(await readFile(join(fx.outside, "secret.txt"), "utf8")).toBe("outside data\n");
  });

  it("denies `..` and absolute paths out of the workspace", async () => {
    const fx = await fixture();
    await writeFile(join(fx.outside, "a.txt"), "a\n");
    for (const path of ["../ws-evil/a.txt", join(fx.outside, "a.txt"), "sub/../../ws-evil/a.txt"]) {
      expect((await fx.fail(fx.kit.readFile, { path })).kind).toBe("Denied");
      expect((await fx.fail(fx.kit.writeFile, { path, content: "b" })).kind).toBe("Denied");
    }
    expect((await fx.fail(fx.kit.glob, { pattern: "../ws-evil/*" })).kind).toBe("InvalidInput");
    expect((await fx.fail(fx.kit.glob, { pattern: "*", path: ".." })).kind).toBe("Denied");
    expect(await readFile(join(fx.outside, "a.txt"), "utf8")).toBe("a\n");
  });

  it("does not take a sibling folder whose name starts like the root (/ws against /ws-evil) for the root", async () => {
    const fx = await fixture();
    expect(fx.outside.startsWith(fx.dir)).toBe(true);
    await writeFile(join(fx.outside, "x.txt"), "x\n");
    expect((await fx.fail(fx.kit.readFile, { path: join(fx.outside, "x.txt") })).kind).toBe("Denied");
    expect((await fx.fail(fx.kit.listDir, { path: fx.outside })).kind).toBe("Denied");
    expect((await fx.fail(fx.kit.writeFile, { path: `${fx.dir}-evil/y.txt`, content: "y" })).kind).toBe(
      "Denied",
    );
  });

  it("rejects a NUL byte in a path as InvalidInput", async () => {
    const fx = await fixture();
    await fx.files({ "a.txt": "a\n" });
    for (const tool of [fx.kit.readFile, fx.kit.listDir]) {
      expect((await fx.fail(tool, { path: "a.txt\0.png" })).kind).toBe("InvalidInput");
    }
    expect((await fx.fail(fx.kit.writeFile, { path: "b\0.txt", content: "" })).kind).toBe("InvalidInput");
    expect((await fx.fail(fx.kit.grep, { pattern: "a", path: "a\0" })).kind).toBe("InvalidInput");
  });

  it("denies secret-like files by default and allows them when the workspace says so", async () => {
    const fx = await fixture();
    await fx.files({ ".env": "API_KEY=hunter2\n", "app.ts": "const key = process.env.API_KEY;\n" });
    expect((await fx.fail(fx.kit.readFile, { path: ".env" })).kind).toBe("Denied");
    expect((await fx.fail(fx.kit.writeFile, { path: "keys/server.pem", content: "x" })).kind).toBe("Denied");
    const found = await fx.call<{ matches: { file: string }[] }>(fx.kit.grep, { pattern: "API_KEY" });
    expect(found.details?.matches.map((m) => m.file)).toEqual(["app.ts"]);
    expect(text(found)).not.toContain("hunter2");

    const open = await fixture({ allowSecrets: true });
    await open.files({ ".env": "API_KEY=hunter2\n" });
    expect(text(await open.call(open.kit.readFile, { path: ".env" }))).toContain("hunter2");
    expect(text(await open.call(open.kit.grep, { pattern: "hunter2" }))).toContain(".env:1:API_KEY=hunter2");
  });
});

describe("suggestions for a missing path", () => {
  it("never name what is behind a folder link that leads outside", async () => {
    const fx = await fixture();
    await writeFile(join(fx.outside, "secret-plan.txt"), "outside\n");
    await symlink(fx.outside, join(fx.dir, "linkdir"));
    await fx.files({ "inside/secret-plan.txt": "inside\n" });
    // A near miss beside the link's target, and a path under it: the outside names are never offered.
    const near = await fx.fail(fx.kit.readFile, { path: "linkdir/secret-plan.tx" });
    expect(near.kind).toBe("NotFound");
    expect(near.message).not.toContain("linkdir/secret-plan.txt");
    expect(near.message).not.toContain("ws-evil");
    const under = await fx.fail(fx.kit.readFile, { path: "linkdir/nested/secret-plan.txt" });
    expect(under.message).not.toContain("linkdir/secret-plan.txt");
    // A same-named file inside is still offered.
    expect(under.message).toContain("inside/secret-plan.txt");
  });
});
