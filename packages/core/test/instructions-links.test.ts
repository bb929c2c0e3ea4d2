import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { Workspace } from "../src/index.js";
import { readWorkspaceInstructions } from "../src/instructions.js";

let dir: string;
let cleanup: () => Promise<void>;
let repo: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-instructions-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, ".git"), { recursive: true });
  await mkdir(join(repo, "pkg"));
});
afterEach(() => cleanup());

const settings = { files: ["AGENTS.md", "CLAUDE.md"], maxBytes: 1_000 };

it("a link out of the repository counts as absent; a link inside it is read", async () => {
  await writeFile(join(dir, "id_rsa"), "PRIVATE KEY");
  await symlink(join(dir, "id_rsa"), join(repo, "AGENTS.md"));
  await writeFile(join(repo, "CLAUDE.md"), "root rules");
  await writeFile(join(repo, "shared.md"), "shared rules");
  await symlink(join(repo, "shared.md"), join(repo, "pkg", "AGENTS.md"));
  const files = await readWorkspaceInstructions(new Workspace(join(repo, "pkg")), settings);
  expect(files.map((f) => f.text)).toEqual(["root rules", "shared rules"]);
});

it("a FIFO is skipped at once instead of waiting for a writer, and a big file is read only to the budget", async () => {
  execFileSync("mkfifo", [join(repo, "AGENTS.md")]);
  await writeFile(join(repo, "pkg", "AGENTS.md"), "x".repeat(50_000));
  const files = await readWorkspaceInstructions(new Workspace(join(repo, "pkg")), settings);
  expect(files).toHaveLength(1);
  expect(files[0]?.text).toMatch(/^x{1000}\n\[… cut: the instructions passed 1000 bytes …\]$/);
});
