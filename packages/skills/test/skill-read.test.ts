import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyTool } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillTools, SkillRegistry } from "../src/index.js";
import { call, failure, writeSkill } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
let read: AnyTool;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-skills-read-"));
  const skills = join(dir, "skills");
  const skill = await writeSkill(
    skills,
    "notes",
    "name: notes\ndescription: Notes.",
    "Line one\nLine two\n",
    {
      "references/guide.md": "guide text\n",
      "assets/logo.bin": "PNG\0\0binary",
      ".env": "TOKEN=secret\n",
    },
  );
  await writeFile(join(dir, "outside.txt"), "outside the skill\n");
  await symlink(join(dir, "outside.txt"), join(skill, "references", "link-out.md"));
  await mkdir(join(dir, "elsewhere"));
  await writeFile(join(dir, "elsewhere", "x.md"), "x\n");
  await symlink(join(dir, "elsewhere"), join(skill, "linked-dir"));
  await symlink(join(skill, "references", "guide.md"), join(skill, "references", "alias.md"));
  const registry = await SkillRegistry.load({ folders: [skills] });
  const tools = await createSkillTools(registry, { scripts: false, maxBytes: 64 });
  read = tools.tools[0] as AnyTool;
});
afterEach(() => cleanup());

describe("skill_read on unhappy paths", () => {
  it("refuses every way out of the skill's folder: .., absolute paths, symlinked files and folders", async () => {
    for (const file of [
      "../../outside.txt",
      join(dir, "outside.txt"),
      "/etc/passwd",
      "references/../../notes-x",
    ]) {
      const refused = await failure(call(read, { skill: "notes", file }, dir));
      expect(refused.kind, file).toBe("Denied");
      expect(refused.message).toMatch(/outside the skill notes's folder/);
    }
    for (const file of ["references/link-out.md", "linked-dir/x.md"]) {
      const refused = await failure(call(read, { skill: "notes", file }, dir));
      expect(refused.kind, file).toBe("Denied");
      expect(refused.message).toMatch(/leads outside .* \(a symlink\)/);
    }
    // A symlink that stays inside is fine.
    expect((await call(read, { skill: "notes", file: "references/alias.md" }, dir)).text).toBe("guide text");
  });

  it("answers missing files, folders, binaries and secrets with clear failures", async () => {
    expect((await failure(call(read, { skill: "notes", file: "references/nope.md" }, dir))).kind).toBe(
      "NotFound",
    );
    const folder = await failure(call(read, { skill: "notes", file: "references" }, dir));
    expect(folder.kind).toBe("InvalidInput");
    const binary = await failure(call(read, { skill: "notes", file: "assets/logo.bin" }, dir));
    expect(binary.message).toMatch(/binary file \(11 bytes\)/);
    const secret = await failure(call(read, { skill: "notes", file: ".env" }, dir));
    expect(secret.kind).toBe("Denied");
    expect((await failure(call(read, { skill: "nope" }, dir))).kind).toBe("NotFound");
    const body = await call(read, { skill: "notes" }, dir);
    expect(body.text).toContain("- references/guide.md");
    expect(body.text).not.toContain(".env");
  });

  it("bounds what one call returns and says where to continue", async () => {
    const skills = join(dir, "big");
    await writeSkill(
      skills,
      "big",
      "name: big\ndescription: Big.",
      Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n"),
    );
    const registry = await SkillRegistry.load({ folders: [skills] });
    const tools = await createSkillTools(registry, { scripts: false, maxBytes: 64 });
    const bigRead = tools.tools[0] as AnyTool;
    const first = await call(bigRead, { skill: "big" }, dir);
    expect(first.text).toContain("line 1\n");
    expect(first.text).not.toContain("line 40");
    const next = /offset=(\d+)/.exec(first.text)?.[1];
    expect(next).toBeDefined();
    const second = await call(bigRead, { skill: "big", offset: Number(next) }, dir);
    expect(second.text).toContain(`line ${next}\n`);
  });
});
