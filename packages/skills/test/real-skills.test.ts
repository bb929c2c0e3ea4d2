import { cp, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { type AnyTool, estimateTextTokens } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { describeWithSharedFixtures } from "@bridle/testing/vitest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillTools, type SkillReadDetails, SkillRegistry, type SkillRunResult } from "../src/index.js";
import { call, failure, OWN_SKILLS } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-skills-real-"));
});
afterEach(() => cleanup());

// The same behaviour on skills written for these tests (test/fixtures/skills): always runs.
describe("own skill fixtures", () => {
  it("discovers the skills, keeps license and metadata, and warns about nothing", async () => {
    const registry = await SkillRegistry.load({ folders: [OWN_SKILLS] });
    expect(registry.skills.map((skill) => skill.name).sort()).toEqual(["page-check", "release-notes"]);
    expect(registry.warnings).toEqual([]);
    const notes = registry.get("release-notes");
    expect(notes.description).toMatch(/^Write the release notes of a package/);
    expect(notes.license).toBe("MIT (see LICENSE.txt)");
    expect(notes.frontMatter.metadata).toEqual({ author: "bridle-tests", version: "1.0" });
    expect(notes.allowedTools).toEqual([]);
    expect(notes.dir).toBe(join(OWN_SKILLS, "release-notes"));
  });

  it("builds a catalog of about 100 tokens a skill, cutting a long description at a word", async () => {
    const registry = await SkillRegistry.load({ folders: [OWN_SKILLS] });
    const lines = registry
      .catalog()
      .split("\n")
      .filter((line) => line.startsWith("- "));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(estimateTextTokens(line)).toBeLessThanOrEqual(100);
    expect(lines.find((line) => line.startsWith("- release-notes"))).toMatch(/ [a-z]+…$/);
    expect(lines.find((line) => line.startsWith("- page-check"))).toMatch(/served as written\.$/);
  });

  it("skill_read returns the body, lists the files, reads a reference in parts and refuses escapes", async () => {
    const registry = await SkillRegistry.load({ folders: [OWN_SKILLS] });
    const { tools } = await createSkillTools(registry, { scripts: false });
    const read = tools[0];
    if (!read) throw new Error("no skill_read");
    const output = await call(read, { skill: "release-notes" }, dir);
    expect(output.text).toMatch(/^<skill name="release-notes" folder="[^"]+release-notes">\n# Release notes/);
    expect(output.text).not.toMatch(/^license:/m);
    for (const file of ["references/format.md", "scripts/check_notes.py", "LICENSE.txt"]) {
      expect(output.text).toContain(`- ${file}`);
    }
    expect(output.text).not.toContain("- SKILL.md");
    expect((output.details as SkillReadDetails).files).toContain("references/format.md");

    await readsInPartsAndRefusesEscape(
      read,
      OWN_SKILLS,
      "release-notes",
      "references/format.md",
      "page-check",
    );
  });

  it("skill_run runs a skill's checker on workspace files: exit 0 when valid, 1 with the reason", async () => {
    const registry = await SkillRegistry.load({ folders: [OWN_SKILLS] });
    const { tools } = await createSkillTools(registry);
    const run = tools.find((tool) => tool.name === "skill_run");
    if (!run) throw new Error("no skill_run");
    await writeFile(join(dir, "good.md"), "# 1.2.0\n\n- skills: validate DIR checks a skill folder.\n");
    await writeFile(join(dir, "bad.md"), "Release 1.2.0\n- one\n");
    const ok = JSON.parse(
      (await call(run, { skill: "release-notes", script: "scripts/check_notes.py", args: ["good.md"] }, dir))
        .text,
    ) as SkillRunResult;
    expect(ok).toMatchObject({ skill: "release-notes", exit_code: 0, success: true, timed_out: false });
    expect(ok.stdout.trim()).toBe("Notes are valid!");
    const bad = JSON.parse(
      (await call(run, { skill: "release-notes", script: "scripts/check_notes.py", args: ["bad.md"] }, dir))
        .text,
    ) as SkillRunResult;
    expect(bad).toMatchObject({ exit_code: 1, success: false });
    expect(bad.stdout).toMatch(/bad.md: the first line must be a '# ' heading/);
  });

  it("skill_run runs a script that starts a real server, uses it and stops it", async () => {
    const registry = await SkillRegistry.load({ folders: [OWN_SKILLS] });
    const { tools } = await createSkillTools(registry);
    const run = tools.find((tool) => tool.name === "skill_run");
    if (!run) throw new Error("no skill_run");
    const port = String(await freePort());
    await writeFile(join(dir, "index.html"), "served from the workspace\n");
    const served = JSON.parse(
      (
        await call(
          run,
          { skill: "page-check", script: "scripts/serve_and_fetch.py", args: [port, "index.html"] },
          dir,
        )
      ).text,
    ) as SkillRunResult;
    expect(served.exit_code).toBe(0);
    expect(served.stdout).toContain("served from the workspace");
    await expect(freePort(Number(port))).resolves.toBe(Number(port));
  });
});

// Four public skills (anthropics/skills, Apache-2.0) that nobody here wrote, used unchanged. They live
// beside the checkout (shared/fixtures): CI has them; in a user's clone this suite reports itself skipped.
describeWithSharedFixtures("agent-skills", "the public Agent Skills fixtures", (FIXTURES) => {
  it("discovers the four skills, keeps unknown front matter keys, and warns about nothing", async () => {
    const registry = await SkillRegistry.load({ folders: [FIXTURES] });
    expect(registry.skills.map((skill) => skill.name).sort()).toEqual([
      "brand-guidelines",
      "mcp-builder",
      "skill-creator",
      "webapp-testing",
    ]);
    expect(registry.warnings).toEqual([]);
    const builder = registry.get("mcp-builder");
    expect(builder.description).toMatch(/^Guide for creating high-quality MCP/);
    expect(builder.license).toBe("Complete terms in LICENSE.txt");
    expect(builder.frontMatter.license).toBe("Complete terms in LICENSE.txt");
    expect(builder.allowedTools).toEqual([]);
    expect(builder.dir).toBe(join(FIXTURES, "mcp-builder"));
  });

  it("builds a catalog of about 100 tokens a skill, naming each one", async () => {
    const registry = await SkillRegistry.load({ folders: [FIXTURES] });
    const catalog = registry.catalog();
    for (const skill of registry.skills) expect(catalog).toContain(`- ${skill.name}: `);
    const lines = catalog.split("\n").filter((line) => line.startsWith("- "));
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(estimateTextTokens(line)).toBeLessThanOrEqual(100);
    // skill-creator's description is longer than the catalog keeps: it is cut at a word, marked.
    expect(lines.find((line) => line.startsWith("- skill-creator"))).toMatch(/…$/);
    expect(catalog).toMatch(/skill_read/);
  });

  it("skill_read returns the body without front matter and lists the files beside it", async () => {
    const registry = await SkillRegistry.load({ folders: [FIXTURES] });
    const { tools } = await createSkillTools(registry);
    const read = tools.find((tool) => tool.name === "skill_read");
    if (!read) throw new Error("no skill_read");
    const output = await call(read, { skill: "mcp-builder" }, dir);
    expect(output.text).toMatch(
      /^<skill name="mcp-builder" folder="[^"]+mcp-builder">\n# MCP Server Development Guide/,
    );
    expect(output.text).not.toMatch(/^license:/m);
    for (const file of ["reference/evaluation.md", "scripts/connections.py", "LICENSE.txt"]) {
      expect(output.text).toContain(`- ${file}`);
    }
    expect(output.text).not.toContain("- SKILL.md");
    const details = output.details as SkillReadDetails;
    expect(details.files).toContain("reference/mcp_best_practices.md");

    const creator = await call(read, { skill: "skill-creator" }, dir);
    for (const file of [
      "agents/grader.md",
      "references/schemas.md",
      "assets/eval_review.html",
      "eval-viewer/viewer.html",
    ]) {
      expect(creator.text).toContain(`- ${file}`);
    }
  });

  it("skill_read reads a reference file in parts and refuses a path out of the skill", async () => {
    const registry = await SkillRegistry.load({ folders: [FIXTURES] });
    const { tools } = await createSkillTools(registry, { scripts: false });
    expect(tools.map((tool) => tool.name)).toEqual(["skill_read"]);
    const read = tools[0];
    if (!read) throw new Error("no skill_read");
    await readsInPartsAndRefusesEscape(
      read,
      FIXTURES,
      "skill-creator",
      "references/schemas.md",
      "mcp-builder",
    );
  });

  it("skill_run runs skill-creator's own validator on skills copied into the workspace", async () => {
    const registry = await SkillRegistry.load({ folders: [FIXTURES] });
    const { tools } = await createSkillTools(registry);
    const run = tools.find((tool) => tool.name === "skill_run");
    if (!run) throw new Error("no skill_run");
    await cp(join(FIXTURES, "brand-guidelines"), join(dir, "brand-guidelines"), { recursive: true });
    const valid = await call(
      run,
      { skill: "skill-creator", script: "scripts/quick_validate.py", args: ["brand-guidelines"] },
      dir,
    );
    const ok = JSON.parse(valid.text) as SkillRunResult;
    expect(ok).toMatchObject({ skill: "skill-creator", exit_code: 0, success: true, timed_out: false });
    expect(ok.stdout.trim()).toBe("Skill is valid!");

    await cp(join(FIXTURES, "brand-guidelines"), join(dir, "broken"), { recursive: true });
    await writeFile(join(dir, "broken", "SKILL.md"), "---\nname: Broken_Name\ndescription: x\n---\nbody\n");
    const invalid = JSON.parse(
      (
        await call(
          run,
          { skill: "skill-creator", script: "scripts/quick_validate.py", args: ["broken"] },
          dir,
        )
      ).text,
    ) as SkillRunResult;
    expect(invalid).toMatchObject({ exit_code: 1, success: false });
    expect(invalid.stdout).toMatch(/Broken_Name.*kebab-case/);
  });

  it("skill_run runs webapp-testing's with_server.py: a real server started, used and stopped", async () => {
    const registry = await SkillRegistry.load({ folders: [FIXTURES] });
    const { tools } = await createSkillTools(registry);
    const run = tools.find((tool) => tool.name === "skill_run");
    if (!run) throw new Error("no skill_run");
    const help = JSON.parse(
      (await call(run, { skill: "webapp-testing", script: "scripts/with_server.py", args: ["--help"] }, dir))
        .text,
    ) as SkillRunResult;
    expect(help.exit_code).toBe(0);
    expect(help.stdout).toMatch(/usage: with_server.py/);

    const port = String(await freePort());
    await writeFile(join(dir, "index.html"), "served from the workspace\n");
    const fetchPage = `import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:${port}/index.html').read().decode().strip())`;
    const served = JSON.parse(
      (
        await call(
          run,
          {
            skill: "webapp-testing",
            script: "scripts/with_server.py",
            args: [
              "--server",
              `python3 -m http.server ${port} --bind 127.0.0.1`,
              "--port",
              port,
              "--",
              "python3",
              "-c",
              fetchPage,
            ],
          },
          dir,
        )
      ).text,
    ) as SkillRunResult;
    expect(served.exit_code).toBe(0);
    expect(served.stdout).toContain("served from the workspace");
    // The skill's script stops its server on the way out.
    await expect(freePort(Number(port))).resolves.toBe(Number(port));
  });
});

/** skill_read pages through a reference file (lines 1-5, then 6-8) and refuses a sibling skill's file. */
async function readsInPartsAndRefusesEscape(
  read: AnyTool,
  root: string,
  skill: string,
  file: string,
  sibling: string,
): Promise<void> {
  const original = (await readFile(join(root, skill, file), "utf8")).split("\n");
  const first = await call(read, { skill, file, limit: 5 }, dir);
  expect(first.text).toContain(original.slice(0, 5).join("\n"));
  expect(first.text).toMatch(/call skill_read again with offset=6\]$/);
  const second = await call(read, { skill, file, offset: 6, limit: 3 }, dir);
  expect(second.text.startsWith(original.slice(5, 8).join("\n"))).toBe(true);
  const outside = await failure(call(read, { skill, file: `../${sibling}/SKILL.md` }, dir));
  expect(outside.kind).toBe("Denied");
  expect(outside.message).toContain(`outside the skill ${skill}'s folder`);
}

function freePort(port = 0): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address ? address.port : 0));
    });
  });
}
