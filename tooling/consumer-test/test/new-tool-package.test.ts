import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const execute = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const generator = join(repoRoot, "tooling", "new-tool-package.mjs");
const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name);

// Generated inside the repository (so the package's relative tsconfig and the root's tools resolve as
// they do for packages/*), but in a folder no workspace glob matches: nobody's pnpm install picks it up.
let parent: string;
let packageDir: string;

beforeAll(async () => {
  parent = await mkdtemp(join(repoRoot, "tooling", "consumer-test", ".generated-"));
  await execute(process.execPath, [generator, "line-stats", "--dir", parent, "--no-changeset"]);
  packageDir = join(parent, "tools-line-stats");
  await linkDependencies(packageDir);
}, 60_000);

afterAll(async () => {
  if (parent) await rm(parent, { recursive: true, force: true });
});

/** What `pnpm install` would link for the generated package.json: its @bridle packages and zod. */
async function linkDependencies(dir: string): Promise<void> {
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const names = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)];
  expect(names.sort()).toEqual(["@bridle/core", "@bridle/testing", "@bridle/tooling", "zod"]);
  await mkdir(join(dir, "node_modules", "@bridle"), { recursive: true });
  const targets: Record<string, string> = {
    "@bridle/core": join(repoRoot, "packages", "core"),
    "@bridle/testing": join(repoRoot, "packages", "testing"),
    "@bridle/tooling": join(repoRoot, "tooling"),
    zod: join(repoRoot, "packages", "core", "node_modules", "zod"),
  };
  for (const name of names) await symlink(targets[name] as string, join(dir, "node_modules", name), "dir");
}

describe("pnpm new-tool", () => {
  it("writes a package whose lint, typecheck and tests (the tool conformance suite) pass unedited", async () => {
    await execute(bin("biome"), ["check", "."], { cwd: packageDir });
    await execute(bin("tsc"), ["-p", "tsconfig.json"], { cwd: packageDir });
    const { stdout } = await execute(bin("vitest"), ["run", "--reporter=verbose"], {
      cwd: packageDir,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(stdout).toContain("Tool conformance: line_stats");
    expect(stdout).toContain("refuses invalid arguments with InvalidInput");
    expect(stdout).toMatch(/Tests\s+\d+ passed/);
    expect(stdout).not.toMatch(/\d+ failed/);
  });

  it("documents a writing tool that the workspace refuses on .git/config with no code of its own", async () => {
    // The README's example of a tool that writes, as a contributor would copy it into the package.
    const readme = await readFile(join(packageDir, "README.md"), "utf8");
    const example = /## A tool that writes\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("ctx.workspace.resolveForWrite");
    // Nothing of the protected-path rule is in the tool itself: the workspace carries all of it.
    expect(example).not.toMatch(/\.git|bridle\.config|\.bridle|protect/);
    await writeFile(join(packageDir, "src", "save-note.ts"), example as string);
    await writeFile(join(packageDir, "test", "save-note.test.ts"), SAVE_NOTE_TEST);
    await execute(bin("tsc"), ["-p", "tsconfig.json"], { cwd: packageDir });
    const { stdout } = await execute(bin("vitest"), ["run", "--reporter=verbose", "test/save-note.test.ts"], {
      cwd: packageDir,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(stdout).toMatch(/Tests\s+1 passed/);
  });

  it("writes a manifest the publish check accepts: the root's repository with the package's folder", async () => {
    const manifest = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8"));
    const root = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8"));
    expect(manifest.repository).toEqual({
      ...root.repository,
      directory: relative(repoRoot, packageDir).split(sep).join("/"),
    });
    expect(manifest.license).toBe(root.license);
    expect(manifest.files).toEqual(["dist", "README.md", "LICENSE"]);
  });

  it("names the package, the tool and its factory from one kebab-case name", async () => {
    const manifest = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8")) as {
      name: string;
      peerDependencies: Record<string, string>;
      files: string[];
    };
    expect(manifest.name).toBe("@bridle/tools-line-stats");
    expect(manifest.peerDependencies).toEqual({ "@bridle/core": "workspace:^" });
    expect(manifest.files).toContain("LICENSE");
    const source = await readFile(join(packageDir, "src", "tool.ts"), "utf8");
    expect(source).toContain('name: "line_stats"');
    expect(source).toContain("export function createLineStatsTool");
  });

  it("refuses a name that is not kebab-case, and an existing folder", async () => {
    await expect(execute(process.execPath, [generator, "Line_Stats", "--dir", parent])).rejects.toThrow(
      /not a kebab-case name/,
    );
    await expect(
      execute(process.execPath, [generator, "line-stats", "--dir", parent, "--no-changeset"]),
    ).rejects.toThrow(/already exists/);
  });
});

// Runs the README's writing tool through a real run: .git/config, a hook and the agent's settings are
// refused as Denied with core's reason and keep their bytes; an ordinary file is written.
const SAVE_NOTE_TEST = `import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness, textOf } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { expect, it } from "vitest";
import { createSaveNoteTool } from "../src/save-note.js";

it("is refused on protected paths and writes an ordinary file", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await mkdir(join(dir, ".git", "hooks"), { recursive: true });
    await writeFile(join(dir, ".git", "config"), "[core]\\n");
    await writeFile(join(dir, "bridle.config.json"), "{}\\n");
    const attack = "[core]\\n\\tfsmonitor = touch pwned\\n";
    const calls = [".git/config", ".git/hooks/pre-commit", "bridle.config.json", "notes/a.txt"].map((path) => ({
      name: "save_note",
      arguments: { path, text: attack },
    }));
    const model = new ScriptedModel([{ toolCalls: calls }, { text: "done" }]);
    const result = await new Harness({ model, tools: [createSaveNoteTool()], workspace: dir }).run({
      prompt: "write",
    });
    const results = result.messages.filter((message) => message.role === "tool");
    expect(results.map((message) => message.errorKind)).toEqual(["Denied", "Denied", "Denied", undefined]);
    expect(textOf(results[0]?.content ?? [])).toContain(".git/config is protected");
    expect(await readFile(join(dir, ".git", "config"), "utf8")).toBe("[core]\\n");
    await expect(readFile(join(dir, ".git", "hooks", "pre-commit"))).rejects.toThrow();
    expect(await readFile(join(dir, "bridle.config.json"), "utf8")).toBe("{}\\n");
    expect(await readFile(join(dir, "notes", "a.txt"), "utf8")).toBe(attack);
  } finally {
    await cleanup();
  }
});
`;
