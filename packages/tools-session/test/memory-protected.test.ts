import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FolderMemory, memoryTools } from "../src/index.js";
import { callTool } from "./helpers.js";

// The application picks the memory folder, and it may lie anywhere: inside a repository's .git, the
// agent's own settings folder, the user's Bridle config folder, or behind a link into one of them.
// write_memory is refused there by core's protected-path rule, and nothing on disk changes.

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-memory-protected-"));
  execFileSync("git", ["init", "-q", "--template=", dir]);
  await mkdir(join(dir, ".git/hooks"), { recursive: true });
  await mkdir(join(dir, ".bridle/agents"), { recursive: true });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await cleanup();
});

/** Every entry under `dir`, links not followed: kind, and the bytes' hash or the link's target. */
async function snapshot(folder: string, prefix = "", out = new Map<string, string>()) {
  for (const name of (await readdir(folder)).sort()) {
    const path = join(folder, name);
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) out.set(prefix + name, `link ${await readlink(path)}`);
    else if (stats.isDirectory()) {
      out.set(prefix + name, "dir");
      await snapshot(path, `${prefix}${name}/`, out);
    } else {
      out.set(
        prefix + name,
        createHash("sha256")
          .update(await readFile(path))
          .digest("hex"),
      );
    }
  }
  return out;
}

/** write_memory over a FolderMemory at `folder`, which must be refused with the reason core gives for `judged`. */
async function expectRefused(folder: string, judged: string, key = "notes") {
  // The workspace the run would have, for the reason core gives; built as the memory was, same environment.
  const reason = new Workspace({ roots: [dir] }).protectedReason(join(dir, judged));
  expect(reason, judged).toBeTruthy();
  const before = await snapshot(dir);
  const result = await callTool(memoryTools(new FolderMemory(folder)), "write_memory", {
    key,
    content: "[core]\n\tfsmonitor = touch /tmp/pwned\n",
  });
  expect(result.errorKind, result.text).toBe("Denied");
  expect(result.text).toContain(reason);
  expect(result.text).toContain("nothing was saved");
  expect(await snapshot(dir)).toEqual(before);
}

describe("write_memory refuses a memory folder on a protected path", () => {
  it("inside .git: an existing folder, or one it would have to create", async () => {
    await expectRefused(join(dir, ".git"), ".git/config", "config");
    await expectRefused(join(dir, ".git/hooks"), ".git/hooks/pre-commit.md");
    await expectRefused(join(dir, ".git/memory"), ".git/memory/notes.md");
  });

  it("inside the agent's own folder, but for its data folders", async () => {
    await expectRefused(join(dir, ".bridle/agents"), ".bridle/agents/notes.md");
    await expectRefused(join(dir, ".bridle/settings"), ".bridle/settings/notes.md");
    const data = join(dir, ".bridle/memory");
    const saved = await callTool(memoryTools(new FolderMemory(data)), "write_memory", {
      key: "k",
      content: "x",
    });
    expect(saved.isError, saved.text).toBe(false);
    expect(await readFile(join(data, "k.md"), "utf8")).toBe("x");
  });

  it("inside the user's Bridle config folder", async () => {
    vi.stubEnv("XDG_CONFIG_HOME", join(dir, "xdg"));
    await mkdir(join(dir, "xdg/bridle"), { recursive: true });
    await expectRefused(join(dir, "xdg/bridle"), "xdg/bridle/notes.md");
    await expectRefused(join(dir, "xdg/bridle/memory"), "xdg/bridle/memory/notes.md");
  });

  it("through a link: a folder link into .git, or a note that links to a hook", async () => {
    await symlink(".git/hooks", join(dir, "memory-link"));
    await expectRefused(join(dir, "memory-link"), ".git/hooks/notes.md");
    await mkdir(join(dir, "notes"));
    // Dangling: writing the note through it would create the hook.
    await symlink("../.git/hooks/post-checkout", join(dir, "notes/deploy.md"));
    await expectRefused(join(dir, "notes"), ".git/hooks/post-checkout", "deploy");
  });
});

it("writes an ordinary memory folder, made on first use, and replaces a note's link rather than its target", async () => {
  const folder = join(dir, "memory/project");
  const tools = memoryTools(new FolderMemory(folder));
  expect((await callTool(tools, "write_memory", { key: "a", content: "first" })).isError).toBe(false);
  expect(await readFile(join(folder, "a.md"), "utf8")).toBe("first");
  await writeFile(join(dir, "elsewhere.txt"), "kept");
  await symlink("../../elsewhere.txt", join(folder, "b.md"));
  expect((await callTool(tools, "write_memory", { key: "b", content: "second" })).text).toBe(
    'Replaced memory "b" (6 characters).',
  );
  expect((await lstat(join(folder, "b.md"))).isSymbolicLink()).toBe(false);
  expect(await readFile(join(folder, "b.md"), "utf8")).toBe("second");
  expect(await readFile(join(dir, "elsewhere.txt"), "utf8")).toBe("kept");
  expect((await readdir(folder)).sort()).toEqual(["a.md", "b.md"]);
});
