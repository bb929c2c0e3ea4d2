import { mkdir, readdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { describeWithSharedFixtures } from "@bridle/testing/vitest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SkillProblem, SkillRegistry, validateSkill } from "../src/index.js";
import { OWN_SKILLS, writeSkill } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-skills-validate-"));
});
afterEach(() => cleanup());

const errors = (problems: readonly SkillProblem[]) =>
  problems
    .filter((problem) => problem.severity === "error")
    .map((problem) => `${problem.code}: ${problem.message}`);

/** A skill folder named `folder` holding this front matter; its problems. */
async function problemsOf(folder: string, frontMatter: string): Promise<SkillProblem[]> {
  return validateSkill(await writeSkill(dir, folder, frontMatter));
}

describe("validateSkill: the rules skills-ref applies", () => {
  it("accepts a minimal skill and one with every allowed field", async () => {
    expect(await problemsOf("my-skill", "name: my-skill\ndescription: A test skill")).toEqual([]);
    const full = [
      "name: full-skill",
      "description: Every field the spec allows.",
      "license: MIT",
      "allowed-tools: Bash(jq:*) Bash(git:*) Read",
      "compatibility: Needs Python 3.11 or later",
      "metadata:",
      "  author: someone",
      "  version: 2",
    ].join("\n");
    expect(await problemsOf("full-skill", full)).toEqual([]);
  });

  it("accepts names in any script, lowercase, after NFKC normalisation", async () => {
    for (const name of ["技能", "мой-навык", "навык", "café", "skill-2"]) {
      expect(await problemsOf(name, `name: ${name}\ndescription: x`), name).toEqual([]);
    }
    // Decomposed "café" (e + combining acute) in the file, composed in the folder name: the same name.
    expect(await problemsOf("café-notes", "name: cafe\u0301-notes\ndescription: x")).toEqual([]);
    // Fullwidth letters normalise (NFKC) to ASCII ones.
    expect(await problemsOf("abc", "name: ａｂｃ\ndescription: x")).toEqual([]);
  });

  it("reads numbers, booleans and padded text as strings, as strictyaml does", async () => {
    expect(await problemsOf("2024", "name: 2024\ndescription: 42")).toEqual([]);
    expect(await problemsOf("padded", "name: '  padded  '\ndescription: '  text  '")).toEqual([]);
    expect(await problemsOf("yes-skill", "name: yes-skill\ndescription: true")).toEqual([]);
    const registry = await SkillRegistry.load({ folders: [dir] });
    expect(registry.get("2024").description).toBe("42");
    expect(registry.get("padded").description).toBe("text");
  });

  it("refuses each bad name with the rule it breaks", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ["MySkill", "MySkill", /must be lowercase/],
      ["НАВЫК", "НАВЫК", /must be lowercase/],
      ["-lead", "-lead", /must not start or end with a hyphen/],
      ["trail-", "trail-", /must not start or end with a hyphen/],
      ["two--hyphens", "two--hyphens", /two hyphens in a row/],
      ["under_score", "under_score", /only letters, digits and hyphens/],
      ["dot.name", "dot.name", /only letters, digits and hyphens/],
      ["a".repeat(65), "a".repeat(65), /is 65 characters; the limit is 64/],
      ["folder", "other", /does not match its folder "folder"/],
    ];
    for (const [folder, name, message] of cases) {
      const found = errors(await problemsOf(folder, `name: ${name}\ndescription: x`));
      expect(
        found.some((line) => line.startsWith("invalid_name") && message.test(line)),
        folder,
      ).toBe(true);
    }
    // 63 letters outside the BMP: 126 UTF-16 units but 63 code points, within the limit (and 252 bytes,
    // within a folder name's 255).
    const wide = "𝒶".repeat(63);
    expect(errors(await problemsOf(wide, `name: ${wide}\ndescription: x`))).toEqual([]);
    expect(errors(await problemsOf("blank", "name: '   '\ndescription: x"))).toEqual([
      "invalid_name: name must be a non-empty string",
    ]);
    expect(errors(await problemsOf("nested", "name:\n  a: b\ndescription: x"))).toEqual([
      "invalid_name: name must be a non-empty string",
    ]);
    // A name over several lines is shown escaped, so each problem stays one line.
    const [line] = errors(await problemsOf("lines", "name: |\n  one\n  two\ndescription: x"));
    expect(line).toMatch(/^invalid_name: name "one\\ntwo" may hold only letters/);
  });

  it("refuses missing, empty and over-long descriptions and compatibility", async () => {
    expect(errors(await problemsOf("none", "name: none"))).toEqual([
      "invalid_description: missing required field `description`",
    ]);
    expect(errors(await problemsOf("empty", "name: empty\ndescription:"))).toEqual([
      "invalid_description: description must be a non-empty string",
    ]);
    expect(errors(await problemsOf("long", `name: long\ndescription: ${"x".repeat(1025)}`))).toEqual([
      "invalid_description: description is 1025 characters; the limit is 1024",
    ]);
    expect(errors(await problemsOf("edge", `name: edge\ndescription: ${"x".repeat(1024)}`))).toEqual([]);
    expect(
      errors(await problemsOf("compat", `name: compat\ndescription: x\ncompatibility: ${"y".repeat(501)}`)),
    ).toEqual(["invalid_field: compatibility is 501 characters; the limit is 500"]);
  });

  it("refuses top-level fields the spec does not allow, naming each", async () => {
    const found = errors(
      await problemsOf("extra", "name: extra\ndescription: x\nversion: 1\nallowed_tools: Read"),
    );
    expect(found).toEqual([
      'unknown_field: unexpected front matter fields "allowed_tools", "version": only name, description, license, allowed-tools, metadata, compatibility are allowed (put your own keys under metadata)',
    ]);
  });

  it("refuses YAML strictyaml refuses: flow collections, duplicate keys, a non-mapping", async () => {
    expect(errors(await problemsOf("flow", "name: flow\ndescription: x\nmetadata: {a: b}"))[0]).toMatch(
      /^invalid_yaml: .*flow style/,
    );
    expect(errors(await problemsOf("dup", "name: dup\ndescription: x\ndescription: y"))[0]).toMatch(
      /^invalid_yaml: .*unique/,
    );
    expect(errors(await problemsOf("list", "- name\n- description"))).toEqual([
      "no_front_matter: the front matter is not a YAML mapping of keys to values",
    ]);
  });

  it("checks the folder itself: missing, a file, no SKILL.md; a SKILL.md path stands for its folder", async () => {
    expect(await validateSkill(join(dir, "absent"))).toEqual([
      { severity: "error", code: "missing_folder", message: `${join(dir, "absent")} does not exist` },
    ]);
    await writeFile(join(dir, "file.txt"), "x");
    expect(errors(await validateSkill(join(dir, "file.txt")))).toEqual([
      `not_a_folder: ${join(dir, "file.txt")} is not a folder`,
    ]);
    await mkdir(join(dir, "empty"));
    expect(errors(await validateSkill(join(dir, "empty")))).toEqual([
      `missing_skill_file: ${join(dir, "empty")} has no SKILL.md`,
    ]);
    const skill = await writeSkill(dir, "by-file", "name: by-file\ndescription: x");
    expect(await validateSkill(join(skill, "SKILL.md"))).toEqual([]);
  });

  it("warns about a lowercase skill.md, and discovery loads it with the same warning instead of dropping it", async () => {
    const skill = await writeSkill(dir, "quiet", "name: quiet\ndescription: Lowercase file name.");
    await rename(join(skill, "SKILL.md"), join(skill, "skill.md"));
    const problems = await validateSkill(skill);
    expect(problems).toEqual([
      {
        severity: "warning",
        code: "lowercase_skill_file",
        message: expect.stringMatching(/^skill\.md should be named SKILL\.md/),
      },
    ]);
    const registry = await SkillRegistry.load({ folders: [dir] });
    expect(registry.get("quiet").file).toBe(join(skill, "skill.md"));
    expect(registry.warnings.map((warning) => warning.code)).toEqual(["lowercase_skill_file"]);
    expect(registry.warnings[0]?.message).toContain(join(skill, "skill.md"));
  });

  // Verdicts skills-ref 0.1.0 (with strictyaml) gave for these, checked side by side with this port.
  it("agrees with skills-ref on Unicode edge cases", async () => {
    const cases: Array<[string, string, boolean]> = [
      ["ǆ", "ǆ", true], // a lowercase digraph letter
      ["ⅻ", "ⅻ", true], // a roman numeral: NFKC makes it "xii", in the folder name too
      ["x²", "x²", true], // NFKC: "x2"
      ["ß-skill", "ß-skill", true],
      ["नमस्ते", "नमस्ते", false], // combining vowel signs are neither letters nor digits
      ["İi", "İi", false], // uppercase dotted I
    ];
    for (const [folder, name, valid] of cases) {
      expect(errors(await problemsOf(folder, `name: ${name}\ndescription: x`)).length === 0, folder).toBe(
        valid,
      );
    }
    const block = "name: block\ndescription: >-\n  folded\n  text\nallowed-tools:\n  - Read\n  - Grep";
    expect(await problemsOf("block", block)).toEqual([]);
  });

  it("finds nothing wrong in this package's own fixture skills", async () => {
    for (const name of await readdir(OWN_SKILLS))
      expect(await validateSkill(join(OWN_SKILLS, name))).toEqual([]);
  });
});

// The public skills (anthropics/skills) pass skills-ref; they must pass here too.
describeWithSharedFixtures("agent-skills", "validateSkill on the public Agent Skills fixtures", (root) => {
  it("finds every public skill valid", async () => {
    for (const name of ["brand-guidelines", "mcp-builder", "skill-creator", "webapp-testing"]) {
      expect(await validateSkill(join(root, name)), name).toEqual([]);
    }
  });
});
