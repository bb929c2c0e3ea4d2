import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  type InstructionsFile,
  instructionsName,
  readWorkspaceInstructions,
  Workspace,
  withInstructions,
} from "../src/index.js";

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

it("reports every file it passes over, reads copilot-instructions.md by default, and names files from the workspace", async () => {
  await writeFile(join(dir, "id_rsa"), "PRIVATE KEY");
  await symlink(join(dir, "id_rsa"), join(repo, "AGENTS.md"));
  await mkdir(join(repo, ".github"));
  await writeFile(join(repo, ".github", "copilot-instructions.md"), "copilot rules");
  execFileSync("mkfifo", [join(repo, "pkg", "AGENTS.md")]);
  await writeFile(join(repo, "pkg", "CLAUDE.md"), "x".repeat(1024 * 1024 + 1));
  const skipped: { path: string; reason: string }[] = [];
  // Reached through a link: the walk starts from the real folder, and names are still relative to it.
  await symlink(join(repo, "pkg"), join(dir, "linked-pkg"));
  const root = join(dir, "linked-pkg");
  const files = await readWorkspaceInstructions(root, undefined, { onSkip: (s) => skipped.push(s) });
  expect(files.map((f) => f.text)).toEqual(["copilot rules"]);
  expect(skipped.map((s) => [s.path.slice(repo.length + 1), s.reason.replace(repo, "REPO")])).toEqual([
    ["AGENTS.md", "it links outside the repository"],
    ["pkg/AGENTS.md", "REPO/pkg/AGENTS.md is not a regular file"],
    ["pkg/CLAUDE.md", "REPO/pkg/CLAUDE.md is larger than 1048576 bytes"],
  ]);
  expect(instructionsName(files[0] as InstructionsFile, root)).toBe("../.github/copilot-instructions.md");
  expect(withInstructions("base", files, root)).toContain(
    "## ../.github/copilot-instructions.md\n\ncopilot rules",
  );
});

it("a failure other than what a repository can plant is thrown with no listener, and reported with one", async () => {
  // A name longer than the file system allows fails the open with ENAMETOOLONG (permissions would not: root).
  const odd = { files: ["x".repeat(300)], maxBytes: 1_000 };
  await expect(readWorkspaceInstructions(repo, odd)).rejects.toMatchObject({ code: "ENAMETOOLONG" });
  const skipped: string[] = [];
  expect(await readWorkspaceInstructions(repo, odd, { onSkip: (s) => skipped.push(s.reason) })).toEqual([]);
  expect(skipped).toEqual([expect.stringContaining("ENAMETOOLONG")]);
});
