import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, test } from "vitest";
import { parse } from "yaml";
import { type DiscoveryCache, discoverSkills, skillCatalog } from "../src/index.js";

// Discovery of 1,000 skills (each a folder with SKILL.md, a script and a reference, like the public
// ones) next to the bare I/O it cannot avoid: listing the folders and reading every SKILL.md. The ratio
// in one run is what parsing, validation and duplicate checks cost on top of the disk.

const COUNT = 1000;
const root = mkdtempSync(join(tmpdir(), "bridle-skills-bench-"));
const description =
  "Checks a repository's release notes against the changelog and the tags, and drafts the missing entries. " +
  "Use when preparing a release or when the user mentions release notes, changelogs or version bumps.";
for (let i = 0; i < COUNT; i++) {
  const dir = join(root, `skill-${i}`);
  mkdirSync(join(dir, "scripts"), { recursive: true });
  mkdirSync(join(dir, "references"), { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: skill-${i}\ndescription: ${description}\nlicense: Apache-2.0\nallowed-tools: Read Grep Bash(git log:*)\nmetadata:\n  author: bench\n  version: "1.${i}"\n---\n\n# Skill ${i}\n\n${"Follow these steps carefully. ".repeat(80)}\n`,
  );
  writeFileSync(join(dir, "scripts", "run.py"), "print('hi')\n");
  writeFileSync(join(dir, "references", "guide.md"), "# Guide\n");
}
afterAll(() => rmSync(root, { recursive: true, force: true }));

const discovered = await discoverSkills({ folders: [root] });
const frontMatters = readdirSync(root).map(
  (name) => readFileSync(join(root, name, "SKILL.md"), "utf8").split("\n---\n")[0] ?? "",
);
if (discovered.skills.length !== COUNT)
  throw new Error(`expected ${COUNT} skills, found ${discovered.skills.length}`);

test(`discovering ${COUNT} skills`, async ({ bench }) => {
  await bench("discoverSkills (walk, read, YAML, validate)", async () => {
    await discoverSkills({ folders: [root] });
  }).run();

  const cache: DiscoveryCache = new Map();
  await bench("discoverSkills again, unchanged files (a reload: walk and stat)", async () => {
    await discoverSkills({ folders: [root], cache });
  }).run();

  await bench("YAML parse of the 1,000 front matters alone", () => {
    for (const text of frontMatters) parse(text);
  }).run();

  await bench("bare I/O: readdir + read every SKILL.md", async () => {
    const entries = await readdir(root);
    await Promise.all(entries.map((name) => readFile(join(root, name, "SKILL.md"), "utf8")));
  }).run();

  await bench("bare I/O, synchronous", () => {
    for (const name of readdirSync(root)) readFileSync(join(root, name, "SKILL.md"), "utf8");
  }).run();
});

test(`catalog of ${COUNT} skills`, async ({ bench }) => {
  await bench("skillCatalog", () => {
    skillCatalog(discovered.skills);
  }).run();
});
