import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverSkills, parseAllowedTools, SkillRegistry, type SkillWarning } from "../src/index.js";
import { failure, writeSkill } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-skills-disc-"));
});
afterEach(() => cleanup());

describe("discovery", () => {
  it("skips each malformed skill with a warning naming its file, and keeps the good ones", async () => {
    const root = join(dir, "skills");
    await writeSkill(
      root,
      "good",
      "name: good\ndescription: A fine skill.\nallowed-tools: Read Bash(git status:*)\nmetadata:\n  tags: a b",
    );
    await writeSkill(root, "bad-yaml", "name: bad-yaml\ndescription: [unclosed");
    await writeSkill(root, "no-name", "description: Has no name.");
    await writeSkill(root, "no-description", "name: no-description");
    await writeSkill(root, "empty-description", 'name: empty-description\ndescription: "  "');
    await writeSkill(root, "Upper", "name: Upper\ndescription: Uppercase name.");
    await writeSkill(root, "double--hyphen", "name: double--hyphen\ndescription: Two hyphens.");
    await writeSkill(root, "elsewhere", "name: other-name\ndescription: Name and folder differ.");
    await writeSkill(root, "list-yaml", "- name\n- description");
    await writeSkill(root, "bad-tools", "name: bad-tools\ndescription: x\nallowed-tools:\n  read: yes");
    await writeSkill(root, "flow-tools", "name: flow-tools\ndescription: x\nallowed-tools: [Read, Grep]");
    await writeSkill(root, "extra-field", "name: extra-field\ndescription: x\ntags: one\nmodel: big");
    await mkdir(join(root, "no-front"), { recursive: true });
    await writeFile(join(root, "no-front", "SKILL.md"), "# Just markdown\n");
    await mkdir(join(root, "unclosed"), { recursive: true });
    await writeFile(join(root, "unclosed", "SKILL.md"), "---\nname: unclosed\ndescription: x\n# body\n");

    const seen: SkillWarning[] = [];
    const registry = await SkillRegistry.load({ folders: [root], onWarning: (w) => seen.push(w) });
    expect(registry.skills.map((skill) => skill.name)).toEqual(["good"]);
    const good = registry.get("good");
    expect(good.allowedTools).toEqual(["Read", "Bash(git status:*)"]);
    expect(good.frontMatter.metadata).toEqual({ tags: "a b" });

    const byFolder = new Map(registry.warnings.map((w) => [w.file.split("/").at(-2), w]));
    const expected: Record<string, [SkillWarning["code"], RegExp]> = {
      "bad-yaml": ["invalid_yaml", /invalid YAML/],
      "no-name": ["invalid_name", /missing required field `name`/],
      "no-description": ["invalid_description", /missing required field `description`/],
      "empty-description": ["invalid_description", /description must be a non-empty string/],
      Upper: ["invalid_name", /must be lowercase/],
      "double--hyphen": ["invalid_name", /two hyphens in a row/],
      elsewhere: ["invalid_name", /does not match its folder "elsewhere"/],
      "list-yaml": ["no_front_matter", /not a YAML mapping/],
      "bad-tools": ["invalid_field", /allowed-tools must be a string or a list/],
      "flow-tools": ["invalid_yaml", /flow style/],
      "extra-field": ["unknown_field", /unexpected front matter fields "model", "tags"/],
      "no-front": ["no_front_matter", /must start with a --- line/],
      unclosed: ["no_front_matter", /not closed/],
    };
    expect([...byFolder.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [folder, [code, message]] of Object.entries(expected)) {
      const warning = byFolder.get(folder);
      expect(warning?.code, folder).toBe(code);
      expect(warning?.file).toBe(join(root, folder, "SKILL.md"));
      expect(warning?.message).toMatch(message);
      expect(warning?.message).toContain(join(root, folder, "SKILL.md"));
    }
    expect(seen).toEqual(registry.warnings);
  });

  it("reports a duplicate name instead of shadowing it: the first folder wins, both files are named", async () => {
    const project = join(dir, "project");
    const user = join(dir, "user");
    await writeSkill(project, "deploy", "name: deploy\ndescription: The project's deploy steps.");
    await writeSkill(user, "deploy", "name: deploy\ndescription: The user's deploy steps.");
    const registry = await SkillRegistry.load({ folders: [project, user] });
    expect(registry.skills).toHaveLength(1);
    expect(registry.get("deploy").description).toBe("The project's deploy steps.");
    expect(registry.duplicates).toEqual([
      {
        name: "deploy",
        kept: join(project, "deploy", "SKILL.md"),
        skipped: join(user, "deploy", "SKILL.md"),
      },
    ]);
    expect(registry.warnings).toHaveLength(1);
    expect(registry.warnings[0]?.code).toBe("duplicate_name");
    expect(registry.warnings[0]?.message).toContain(join(project, "deploy", "SKILL.md"));
    expect(registry.warnings[0]?.file).toBe(join(user, "deploy", "SKILL.md"));
  });

  it("finds nested and symlinked skills once, survives a symlink cycle, and names a missing folder", async () => {
    const root = join(dir, "skills");
    await writeSkill(join(root, "group"), "nested", "name: nested\ndescription: In a group folder.");
    await writeSkill(dir, "linked-target", "name: linked-target\ndescription: Reached through a symlink.");
    await symlink(join(dir, "linked-target"), join(root, "linked-target"));
    await symlink(root, join(root, "group", "loop"));
    await writeSkill(join(root, "node_modules"), "hidden-dep", "name: hidden-dep\ndescription: x");
    const found = await discoverSkills({ folders: [root, join(dir, "missing")] });
    expect(found.skills.map((skill) => skill.name).sort()).toEqual(["linked-target", "nested"]);
    expect(found.warnings).toEqual([
      {
        code: "missing_folder",
        file: join(dir, "missing"),
        message: `skills folder ${join(dir, "missing")} does not exist`,
      },
    ]);
    // `~/` is the home folder, as in the usual ~/.claude/skills.
    const home = process.env.HOME;
    process.env.HOME = dir;
    try {
      const fromHome = await discoverSkills({ folders: ["~/skills/group"] });
      expect(fromHome.skills.map((skill) => skill.file)).toContain(join(root, "group", "nested", "SKILL.md"));
    } finally {
      process.env.HOME = home;
    }
    // A configured folder may be a skill itself.
    const single = await discoverSkills({ folders: [join(root, "group", "nested")] });
    expect(single.skills.map((skill) => skill.name)).toEqual(["nested"]);
  });

  it("refuses an oversized SKILL.md and a YAML alias bomb without parsing them whole", async () => {
    const root = join(dir, "skills");
    await writeSkill(root, "huge", `name: huge\ndescription: x`, "x".repeat(8192));
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 30; i++)
      bomb.push(`${"a".repeat(i + 1)}: &${"a".repeat(i + 1)} [*${"a".repeat(i)}, *${"a".repeat(i)}]`);
    await writeSkill(root, "bomb", `name: bomb\ndescription: x\n${bomb.join("\n")}`);
    const found = await discoverSkills({ folders: [root], maxFileBytes: 4096 });
    expect(found.skills).toEqual([]);
    expect(found.warnings.map((w) => w.code).sort()).toEqual(["invalid_yaml", "too_large"]);
  });

  it("reads a SKILL.md with a byte-order mark and CRLF line ends", async () => {
    await mkdir(join(dir, "crlf"));
    await writeFile(
      join(dir, "crlf", "SKILL.md"),
      "\uFEFF---\r\nname: crlf\r\ndescription: Written on Windows.\r\n---\r\n\r\n# Body\r\n",
    );
    const found = await discoverSkills({ folders: [dir] });
    expect(found.warnings).toEqual([]);
    expect(found.skills[0]?.description).toBe("Written on Windows.");
  });

  it("reads allowed-tools as a space list, a comma list or a YAML list, with parentheses kept whole", () => {
    expect(parseAllowedTools("Read Bash(git add:*) Grep")).toEqual(["Read", "Bash(git add:*)", "Grep"]);
    expect(parseAllowedTools("Read, Write,Edit")).toEqual(["Read", "Write", "Edit"]);
    expect(parseAllowedTools(["read_file", "Bash(npm run test *)"])).toEqual([
      "read_file",
      "Bash(npm run test *)",
    ]);
    expect(parseAllowedTools(undefined)).toEqual([]);
    expect(parseAllowedTools(7)).toEqual({ problem: "allowed-tools must be a string or a list of strings" });
  });

  it("reload picks up edited, added and removed skills", async () => {
    const root = join(dir, "skills");
    await writeSkill(root, "one", "name: one\ndescription: First version.");
    await writeSkill(root, "two", "name: two\ndescription: Two.");
    const registry = await SkillRegistry.load({ folders: [root] });
    const before = registry.get("two");
    await writeSkill(root, "one", "name: one\ndescription: Second version, longer.");
    await rm(join(root, "two"), { recursive: true });
    await writeSkill(root, "three", "name: three\ndescription: Three.");
    await registry.reload();
    expect(registry.skills.map((skill) => skill.name).sort()).toEqual(["one", "three"]);
    expect(registry.get("one").description).toBe("Second version, longer.");
    await writeSkill(root, "two", "name: two\ndescription: Two.");
    await registry.reload();
    expect(registry.get("two")).not.toBe(before);
    expect(registry.get("two").description).toBe("Two.");
  });

  it("answers an unknown skill with NotFound listing what exists", async () => {
    await writeSkill(dir, "alpha", "name: alpha\ndescription: First.");
    const registry = await SkillRegistry.load({ folders: [dir] });
    const missing = await failure(Promise.resolve().then(() => registry.get("beta")));
    expect(missing.kind).toBe("NotFound");
    expect(missing.message).toBe('no skill named "beta"; skills: alpha');
  });
});
