#!/usr/bin/env node
// Proves every public package would publish today, from its built dist/ (run after `pnpm build`):
//   1. its manifest is complete and true: license and LICENSE file, repository (the root's url, its own
//      folder as directory), files, type module, every exports entry with types, and engines.node within
//      what each of its runtime dependencies (transitively, peers included when installed) declares;
//   2. `pnpm pack` packs it (workspace: ranges resolved, as a consumer receives them);
//   3. publint and are-the-types-wrong (esm-only profile: the packages are ESM only) pass on the tarball;
//   4. `pnpm publish --dry-run --no-git-checks` goes through.
// Usage: node tooling/publish-check.mjs [@bridle/name ...]   (no names: every public package)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => join(root, "node_modules", ".bin", name);
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
const rootManifest = readJson(join(root, "package.json"));

function publicPackages() {
  const found = [];
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, group)).sort()) {
      const file = join(root, group, name, "package.json");
      if (!existsSync(file)) continue;
      const manifest = readJson(file);
      if (manifest.private !== true)
        found.push({ dir: join(root, group, name), folder: `${group}/${name}`, manifest });
    }
  }
  return found;
}

// Node's lookup: the nearest node_modules/<name> from `fromDir` upwards. In pnpm's layout a package's own
// dependencies sit beside it under .pnpm/<id>/node_modules, which this walk reaches from its real path.
function findPackageDir(fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

// Each installed runtime dependency whose engines.node does not cover every Node version `range` admits.
// Optional peers (vitest for @bridle/testing's suites) are the consumer's choice, so they are left out;
// below a dependency that conflicts nothing more is reported, since widening for it re-checks its tree.
function engineConflicts(pkgDir, manifest, range) {
  const conflicts = [];
  const seen = new Set();
  const queue = [{ dir: pkgDir, manifest, via: [] }];
  while (queue.length > 0) {
    const { dir, manifest: from, via } = queue.shift();
    const optional = from.peerDependenciesMeta ?? {};
    const peers = Object.keys(from.peerDependencies ?? {}).filter(
      (name) => optional[name]?.optional !== true,
    );
    const names = [...Object.keys(from.dependencies ?? {}), ...peers];
    for (const name of names) {
      const depDir = findPackageDir(dir, name);
      if (depDir === undefined || seen.has(depDir)) continue;
      seen.add(depDir);
      const dep = readJson(join(depDir, "package.json"));
      const wanted = dep.engines?.node;
      const chain = [...via, `${dep.name}@${dep.version}`];
      if (typeof wanted === "string" && semver.validRange(wanted) && !semver.subset(range, wanted)) {
        conflicts.push(`${chain.join(" > ")} needs node ${wanted}`);
        continue;
      }
      queue.push({ dir: depDir, manifest: dep, via: chain });
    }
  }
  return conflicts;
}

function manifestProblems({ dir, folder, manifest }) {
  const problems = [];
  const repo = rootManifest.repository ?? {};
  if (manifest.license !== rootManifest.license) problems.push(`license is not ${rootManifest.license}`);
  if (!existsSync(join(dir, "LICENSE"))) problems.push("no LICENSE file");
  if (manifest.type !== "module") problems.push('type is not "module"');
  if (typeof manifest.description !== "string" || manifest.description.length === 0)
    problems.push("no description");
  if (manifest.repository?.type !== repo.type || manifest.repository?.url !== repo.url) {
    problems.push(`repository is not { type: "${repo.type}", url: "${repo.url}", directory: "${folder}" }`);
  } else if (manifest.repository.directory !== folder) {
    problems.push(`repository.directory is not "${folder}"`);
  }
  for (const wanted of ["dist", "README.md", "LICENSE"]) {
    if (!manifest.files?.includes(wanted)) problems.push(`files does not list ${wanted}`);
  }
  if (manifest.exports === undefined && manifest.bin === undefined) problems.push("neither exports nor bin");
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (typeof target !== "object" || typeof target.types !== "string") {
      problems.push(`exports["${subpath}"] has no types`);
    } else if (Object.keys(target)[0] !== "types") {
      problems.push(`exports["${subpath}"] does not list types first`);
    }
  }
  const range = manifest.engines?.node;
  if (typeof range !== "string" || !semver.validRange(range)) {
    problems.push("engines.node is missing or not a range");
  } else {
    for (const conflict of engineConflicts(dir, manifest, range)) {
      problems.push(`engines.node ${range} admits versions a dependency refuses: ${conflict}`);
    }
  }
  return problems;
}

// Runs a tool; its output is shown only when it fails, so a green run stays a few lines per package.
function step(label, command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  if (result.status === 0) return [];
  const output =
    `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}`.trim();
  return [`${label} failed (exit ${result.status}):\n${output.replace(/^/gm, "    ")}`];
}

function checkPackage(pkg, outDir) {
  const problems = manifestProblems(pkg);
  for (const entry of Object.values(pkg.manifest.exports ?? {})) {
    for (const file of Object.values(entry)) {
      if (!existsSync(join(pkg.dir, file))) problems.push(`${file} is not built (run pnpm build first)`);
    }
  }
  if (problems.length > 0) return problems;
  const packed = spawnSync("pnpm", ["pack", "--pack-destination", outDir], {
    cwd: pkg.dir,
    encoding: "utf8",
  });
  const tarball = readdirSync(outDir).find((f) => f.endsWith(`-${pkg.manifest.version}.tgz`));
  if (packed.status !== 0 || tarball === undefined) {
    return [`pnpm pack failed (exit ${packed.status}):\n${`${packed.stdout}${packed.stderr}`.trim()}`];
  }
  const file = join(outDir, tarball);
  problems.push(...step("publint", bin("publint"), ["run", file, "--strict"], root));
  // A package with only a bin has no entry point whose types a consumer resolves.
  if (pkg.manifest.exports !== undefined) {
    problems.push(
      ...step(
        "are-the-types-wrong",
        bin("attw"),
        [file, "--profile", "esm-only", "--no-emoji", "--format", "ascii"],
        root,
      ),
    );
  }
  problems.push(
    ...step("pnpm publish --dry-run", "pnpm", ["publish", "--dry-run", "--no-git-checks"], pkg.dir),
  );
  return problems;
}

const wanted = process.argv.slice(2);
const packages = publicPackages().filter((p) => wanted.length === 0 || wanted.includes(p.manifest.name));
const missing = wanted.filter((name) => !packages.some((p) => p.manifest.name === name));
if (missing.length > 0) {
  console.error(`publish check: no public package named ${missing.join(", ")}`);
  process.exit(2);
}
const version = (name) => readJson(join(root, "node_modules", name, "package.json")).version;
console.log(
  `publish check: ${packages.length} packages, publint ${version("publint")}, attw ${version("@arethetypeswrong/cli")}`,
);
let failed = 0;
for (const pkg of packages) {
  const outDir = mkdtempSync(join(tmpdir(), "bridle-pack-"));
  try {
    const problems = checkPackage(pkg, outDir);
    if (problems.length === 0) {
      console.log(`ok    ${pkg.manifest.name}@${pkg.manifest.version} (${relative(root, pkg.dir)})`);
    } else {
      failed++;
      console.log(`FAIL  ${pkg.manifest.name}@${pkg.manifest.version} (${relative(root, pkg.dir)})`);
      for (const problem of problems) console.log(`  - ${problem}`);
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
console.log(`publish check: ${packages.length - failed} would publish, ${failed} would not`);
process.exit(failed === 0 ? 0 : 1);
