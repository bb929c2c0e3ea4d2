import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { expect, it, vi } from "vitest";
import { writeSkill } from "./helpers.js";

it("the README example runs as written", async () => {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!example) throw new Error("no ts example in the README");
  const { dir, cleanup } = await tempWorkspace("bridle-skills-readme-");
  await writeSkill(
    join(dir, ".agents", "skills"),
    "hello",
    "name: hello\ndescription: Says hello.",
    "Say hello.\n",
  );
  // Written beside the tests so the workspace aliases resolve its imports as they do for the tests.
  const file = new URL(`./readme-example-${process.pid}.ts`, import.meta.url);
  await writeFile(file, example);
  const logged: unknown[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args) => void logged.push(...args));
  const before = process.cwd();
  try {
    process.chdir(dir);
    await import(file.href);
  } finally {
    process.chdir(before);
    log.mockRestore();
    await rm(file, { force: true });
    await cleanup();
  }
  expect(logged).toEqual(["completed"]);
});
