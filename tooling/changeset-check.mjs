#!/usr/bin/env node
// Fails when a public package's src/ or package.json changed since the base branch without a changeset
// naming it (`changeset status --since`; which files count is `changedFilePatterns` in .changeset/config.json).
// The base is $BRIDLE_CHANGESET_BASE, else origin/main when that ref exists. With no base (a fresh
// repository, a detached CI checkout without the remote branch) there is nothing to compare, and it says so.
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function refExists(ref) {
  return (
    spawnSync("git", ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { cwd: root }).status === 0
  );
}

const base = process.env.BRIDLE_CHANGESET_BASE || (refExists("origin/main") ? "origin/main" : undefined);
if (!base) {
  console.log("changeset check: no base branch (set BRIDLE_CHANGESET_BASE or fetch origin/main); skipped");
  process.exit(0);
}
if (!refExists(base)) {
  console.error(`changeset check: base ${base} is not a commit here`);
  process.exit(1);
}
const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
const baseCommit = execFileSync("git", ["rev-parse", base], { cwd: root, encoding: "utf8" }).trim();
if (head === baseCommit) {
  console.log(`changeset check: HEAD is ${base}; nothing to compare`);
  process.exit(0);
}
const result = spawnSync("pnpm", ["exec", "changeset", "status", `--since=${base}`], {
  cwd: root,
  stdio: "inherit",
});
if (result.status !== 0) {
  console.error(
    `changeset check: packages changed since ${base} without a changeset. Run \`pnpm changeset\`, pick the packages and a bump, describe the change for users, commit the file.`,
  );
}
process.exit(result.status ?? 1);
