import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sharedFixtures, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-skills-"));
});
afterEach(() => cleanup());

async function skill(folder: string, file: string, text: string): Promise<string> {
  await mkdir(join(dir, folder), { recursive: true });
  await writeFile(join(dir, folder, file), text);
  return folder;
}

describe("bridle skills validate", () => {
  it("exits 0 for valid skills (a lowercase skill.md only warned about), 1 with one line per problem", async () => {
    await skill("good", "SKILL.md", "---\nname: good\ndescription: Fine.\n---\nBody\n");
    await skill("quiet", "skill.md", "---\nname: quiet\ndescription: Lowercase file.\n---\nBody\n");
    const valid = await runCli(["skills", "validate", "good", "quiet"], { cwd: dir });
    expect(valid.code).toBe(0);
    expect(valid.stdout.trim().split("\n")).toEqual([
      "good: valid skill",
      expect.stringMatching(/^quiet: warning: skill\.md should be named SKILL\.md/),
      "quiet: valid skill",
    ]);

    await skill("Bad_Name", "SKILL.md", "---\nname: Bad_Name\ndescription: x\ntags: a\n---\nBody\n");
    const invalid = await runCli(["skills", "validate", "good", "Bad_Name"], { cwd: dir });
    expect(invalid.code).toBe(1);
    expect(invalid.stdout.trim().split("\n")).toEqual([
      "good: valid skill",
      expect.stringMatching(/^Bad_Name: error: unexpected front matter field "tags"/),
      'Bad_Name: error: name "Bad_Name" must be lowercase',
      'Bad_Name: error: name "Bad_Name" may hold only letters, digits and hyphens',
    ]);
    // A folder of skills: each skill in it, in name order; an empty folder is reported as no skill.
    await mkdir(join(dir, "set"));
    await rename(join(dir, "good"), join(dir, "set", "good"));
    await rename(join(dir, "Bad_Name"), join(dir, "set", "Bad_Name"));
    const folder = await runCli(["skills", "validate", "set"], { cwd: dir });
    expect(folder.code).toBe(1);
    expect(folder.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(/^set\/Bad_Name: error: unexpected front matter field "tags"/),
      'set/Bad_Name: error: name "Bad_Name" must be lowercase',
      'set/Bad_Name: error: name "Bad_Name" may hold only letters, digits and hyphens',
      "set/good: valid skill",
    ]);
    await mkdir(join(dir, "empty"));
    const empty = await runCli(["skills", "validate", "empty"], { cwd: dir });
    expect(empty.code).toBe(1);
    expect(empty.stdout).toMatch(/^empty: error: /);

    const missing = await runCli(["skills", "validate", "nowhere"], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe(`nowhere: error: ${join(dir, "nowhere")} does not exist\n`);
  });

  it("is a usage error (exit 2, one line, no stack) without an action or a folder", async () => {
    for (const args of [["skills"], ["skills", "validate"], ["skills", "check", "x"]]) {
      const run = await runCli(args, { cwd: dir });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/usage: bridle skills validate DIR/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  const publicSkills = sharedFixtures("agent-skills");
  it.skipIf(!publicSkills.dir)(
    `finds the four public skills valid${publicSkills.reason ? ` (skipped: ${publicSkills.reason})` : ""}`,
    async () => {
      const names = ["brand-guidelines", "mcp-builder", "skill-creator", "webapp-testing"];
      const run = await runCli(["skills", "validate", ...names], { cwd: publicSkills.dir ?? dir });
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split("\n")).toEqual(names.map((name) => `${name}: valid skill`));
    },
  );
});
