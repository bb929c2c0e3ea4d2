#!/usr/bin/env node
// Creates a new tool package: node tooling/new-tool-package.mjs <name> [--dir <parent>] [--no-changeset]
// <name> is kebab-case ("word-count"): the package is packages/tools-<name> (@bridle/tools-<name>) and the
// example tool is named <name> in snake_case. The package's test runs the tool conformance suite of
// @bridle/testing and passes as generated.
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as templates from "./new-tool/templates.mjs";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** Names and paths of the package to create, from its kebab-case name. */
export function describePackage(name, parentDir = join(repoRoot, "packages")) {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name) || name.length > 40) {
    throw new Error(
      `"${name}" is not a kebab-case name (letters, digits, single dashes; at most 40 characters)`,
    );
  }
  const pascal = name
    .split("-")
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
  const dir = resolve(parentDir, `tools-${name}`);
  return {
    folder: `tools-${name}`,
    dir,
    packageName: `@bridle/tools-${name}`,
    toolName: name.replaceAll("-", "_"),
    factory: `create${pascal}Tool`,
    optionsType: `${pascal}ToolOptions`,
    detailsType: `${pascal}Details`,
    relativeRoot: relative(dir, repoRoot).split("\\").join("/") || ".",
  };
}

/** Writes the package; refuses to touch an existing folder. Returns the files written. */
export async function generateToolPackage(name, options = {}) {
  const pkg = describePackage(name, options.parentDir);
  if (
    await stat(pkg.dir).then(
      () => true,
      () => false,
    )
  )
    throw new Error(`${pkg.dir} already exists`);
  // The repository as the root manifest names it, with the package's folder: the publish check wants both.
  const root = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8"));
  const repository = { ...root.repository, directory: relative(repoRoot, pkg.dir).split("\\").join("/") };
  const files = {
    "package.json": templates.packageJson({ ...pkg, repository }),
    "tsconfig.json": templates.tsconfig(pkg),
    "tsdown.config.ts": templates.tsdownConfig,
    "vitest.config.ts": templates.vitestConfig,
    "src/index.ts": templates.index(pkg),
    "src/tool.ts": templates.tool(pkg),
    [`test/${pkg.folder}.test.ts`]: templates.test(pkg),
    "README.md": templates.readme(pkg),
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(pkg.dir, path, ".."), { recursive: true });
    await writeFile(join(pkg.dir, path), text);
  }
  await copyFile(join(repoRoot, "LICENSE"), join(pkg.dir, "LICENSE"));
  // The repository's formatter has the last word on layout, so the package passes `lint` as generated.
  execFileSync(join(repoRoot, "node_modules", ".bin", "biome"), ["check", "--write", pkg.dir], {
    stdio: "pipe",
  });
  const written = [...Object.keys(files), "LICENSE"].map((path) => join(pkg.dir, path));
  // Only a package in packages/ is public: the API report check builds and reads it from then on.
  if (options.parentDir === undefined) {
    await wireApiReport(pkg.packageName);
    written.push(join(repoRoot, "tooling", "api-report", "package.json"));
  }
  if (options.changeset !== false) {
    const path = join(repoRoot, ".changeset", `${pkg.folder}-initial.md`);
    await writeFile(path, templates.changeset(pkg));
    written.push(path);
  }
  return { pkg, written };
}

async function wireApiReport(packageName) {
  const path = join(repoRoot, "tooling", "api-report", "package.json");
  const manifest = JSON.parse(await readFile(path, "utf8"));
  manifest.devDependencies = Object.fromEntries(
    Object.entries({ ...manifest.devDependencies, [packageName]: "workspace:*" }).sort(([a], [b]) =>
      a.localeCompare(b),
    ),
  );
  await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { dir: { type: "string" }, "no-changeset": { type: "boolean" } },
  });
  const name = positionals[0];
  if (!name || positionals.length > 1) {
    console.error("usage: pnpm new-tool <kebab-name> [--dir <parent folder>] [--no-changeset]");
    process.exit(2);
  }
  const { pkg, written } = await generateToolPackage(name, {
    ...(values.dir ? { parentDir: resolve(values.dir) } : {}),
    changeset: !values["no-changeset"],
  });
  for (const path of written) console.log(`created ${relative(process.cwd(), path)}`);
  console.log(`
next:
  flock /tmp/bridle-pnpm.lock pnpm install   # or plain pnpm install when you work alone
  pnpm --filter ${pkg.packageName} test
  pnpm --filter ${pkg.packageName} build && pnpm api:update   # its public API report, etc/${pkg.folder}.api.md
then replace the example tool in ${relative(process.cwd(), join(pkg.dir, "src/tool.ts"))} with yours.`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
