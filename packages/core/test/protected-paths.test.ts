import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { protectedPathReason, ToolFailure, userConfigFolder, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let base: string;
let cleanup: () => Promise<void>;
let root: string;
let ws: Workspace;

beforeEach(async () => {
  ({ dir: base, cleanup } = await tempWorkspace());
  root = join(base, "ws");
  await mkdir(join(root, ".git", "hooks"), { recursive: true });
  await writeFile(join(root, ".git", "config"), "[core]\n");
  await writeFile(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  await mkdir(join(root, "src"), { recursive: true });
  ws = new Workspace(root);
});
afterEach(() => cleanup());

async function denial(path: string, workspace = ws): Promise<string> {
  try {
    await workspace.resolveForWrite(path, { createParents: true });
  } catch (error) {
    if (error instanceof ToolFailure && error.kind === "Denied") return error.message;
    throw error;
  }
  throw new Error(`${path} was writable`);
}

describe("protectedPathReason", () => {
  it.each([
    ".git/config",
    ".git",
    ".git/hooks/pre-commit",
    ".git/commondir",
    ".git/HEAD",
    ".git/objects/info/alternates",
    ".git/modules/sub/config",
    ".git/worktrees/w/gitdir",
    ".git/config.worktree",
    ".git/info/attributes",
    "sub/.git",
    "sub/.git/config",
    "vendor/lib/.git/hooks/post-checkout",
    ".GIT/config",
    "./.git//config",
    "bridle.config.json",
    "bridle.config.yaml",
    "pkg/bridle.config.yml",
    "bridle.config.ts/x",
    ".bridle/agents/reviewer.md",
    ".bridle/settings.json",
    "sub/.bridle/agents/x.md",
    ".bridle/tool-output/.git/config",
  ])("protects %s", (path) => {
    expect(protectedPathReason(path)).toBeTypeOf("string");
  });

  it.each([
    "src/index.ts",
    ".gitignore",
    ".github/workflows/ci.yml",
    "git/config",
    "my.git/config",
    "bridle.config",
    "docs/bridle.md",
    ".bridle",
    ".bridle/tool-output/call-1.txt",
    ".bridle/shell-output/run.log",
    ".bridle/memory/notes.md",
  ])("leaves %s writable", (path) => {
    expect(protectedPathReason(path)).toBeUndefined();
  });
});

describe("Workspace.resolveForWrite refuses protected paths", () => {
  it("as written, whatever the spelling", async () => {
    for (const path of [
      ".git/config",
      ".git/hooks/post-checkout",
      ".git/commondir",
      "src/../.git/info/exclude",
      join(root, ".git", "HEAD"),
      "bridle.config.json",
      ".bridle/agents/evil.md",
    ]) {
      expect(await denial(path)).toMatch(/is protected/);
    }
    expect(await ws.resolveForWrite("src/ok.ts")).toBe(join(root, "src", "ok.ts"));
  });

  it("says a path through a file is not found, instead of failing with ENOTDIR", async () => {
    await writeFile(join(root, "src", "file.txt"), "x");
    await expect(ws.resolveForWrite("src/file.txt/x")).rejects.toMatchObject({ kind: "NotFound" });
    await expect(ws.resolveForWrite("src/file.txt/y/z", { createParents: true })).rejects.toMatchObject({
      kind: "NotFound",
    });
  });

  it("through a symlinked folder or file that resolves into .git", async () => {
    await symlink(join(root, ".git"), join(root, "meta"));
    await symlink(join(root, ".git", "config"), join(root, "settings.ini"));
    await symlink(join(root, ".git", "hooks", "pre-commit"), join(root, "dangling"));
    expect(await denial("meta/config")).toMatch(/git's own folder/);
    expect(await denial("meta/hooks/pre-commit")).toMatch(/git's own folder/);
    expect(await denial("settings.ini")).toMatch(/git's own folder/);
    expect(await denial("dangling")).toMatch(/is protected/);
  });

  it("refuses the user's config folder when a root reaches it, and extra protected paths", async () => {
    const home = join(base, "home");
    const config = join(home, ".config", "bridle");
    await mkdir(config, { recursive: true });
    const previous = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = join(home, ".config");
    try {
      expect(userConfigFolder()).toBe(config);
      const wide = new Workspace({ roots: [home], protectedPaths: [join(home, "mcp.json")] });
      expect(await denial(".config/bridle/approval-secret", wide)).toMatch(/user's Bridle settings/);
      expect(await denial(".config/bridle/trust.json", wide)).toMatch(/user's Bridle settings/);
      expect(await denial("mcp.json", wide)).toMatch(/is protected/);
      expect(await wide.resolveForWrite("notes.md")).toBe(join(home, "notes.md"));
    } finally {
      if (previous === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = previous;
    }
  });
});
