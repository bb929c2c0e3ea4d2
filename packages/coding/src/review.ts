import { basename } from "node:path";
import type { Hunk } from "@bridle/core";
import type { ReviewFlag } from "./facts.js";
import type { AgentFileChange } from "./repo-state.js";
import { scanAddedLines } from "./secret-scan.js";
import { weakenedTests } from "./test-weakening.js";

const LOCKFILES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "bun.lock",
  "bun.lockb",
  "Cargo.lock",
  "go.sum",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "Gemfile.lock",
  "composer.lock",
]);

// Per file at most this many flags of one kind are listed: the rest are counted in the last note.
const MAX_FLAGS_PER_FILE = 5;

/** Same text once whitespace is gone. */
function squeeze(lines: readonly string[]): string {
  return lines.join("").replace(/\s+/g, "");
}

/** Same text once whitespace, quote style and trailing separators are normalised. */
function format(lines: readonly string[]): string {
  return squeeze(lines).replace(/['`]/g, '"').replace(/[;,]/g, "");
}

function churnKind(hunk: Hunk): string | undefined {
  if (hunk.removed.length === 0 && hunk.added.length === 0) return undefined;
  if (squeeze(hunk.removed) === squeeze(hunk.added)) return "whitespace-only";
  if (format(hunk.removed) === format(hunk.added)) return "formatting-only";
  return undefined;
}

/** Whether `path` lies in one of the scope entries: a folder or file prefix, or a simple `*` glob. */
export function inScope(path: string, scope: readonly string[]): boolean {
  return scope.some((entry) => {
    const clean = entry.replace(/^\.\//, "").replace(/\/+$/, "");
    if (clean === "" || clean === ".") return true;
    if (clean.includes("*")) {
      const source = clean
        .split("**")
        .map((part) => part.split("*").map(escapeRegExp).join("[^/]*"))
        .join(".*");
      return new RegExp(`^${source}(/.*)?$`).test(path);
    }
    return path === clean || path.startsWith(`${clean}/`);
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The review before handoff: secrets in what the agent added, whitespace- or formatting-only hunks,
 * lockfile changes, weakened tests, and files outside the declared scope (when the plan declared one).
 */
export function reviewChanges(changes: readonly AgentFileChange[], scope?: readonly string[]): ReviewFlag[] {
  const flags: ReviewFlag[] = [];
  for (const file of changes) {
    const { path } = file;
    const findings = file.hunks.flatMap((hunk) => scanAddedLines(path, hunk.added, hunk.newStart));
    for (const finding of findings.slice(0, MAX_FLAGS_PER_FILE)) {
      flags.push({ kind: "secret", path, note: `${finding.what} added at line ${finding.line}` });
    }
    if (findings.length > MAX_FLAGS_PER_FILE) {
      flags.push({
        kind: "secret",
        path,
        note: `${findings.length - MAX_FLAGS_PER_FILE} more secret findings`,
      });
    }
    const lockfileInScope = scope !== undefined && inScope(path, scope);
    if (LOCKFILES.has(basename(path)) && !lockfileInScope) {
      flags.push({
        kind: "churn",
        path,
        note: "lockfile changed; lockfile changes need to be part of the task",
      });
    }
    const churn = file.hunks.flatMap((hunk) => {
      const kind = churnKind(hunk);
      return kind ? [`${kind} hunk at line ${hunk.newStart}`] : [];
    });
    for (const note of churn.slice(0, MAX_FLAGS_PER_FILE)) flags.push({ kind: "churn", path, note });
    if (churn.length > MAX_FLAGS_PER_FILE) {
      flags.push({ kind: "churn", path, note: `${churn.length - MAX_FLAGS_PER_FILE} more churn hunks` });
    }
    flags.push(...weakenedTests(file));
    if (file.userChanges === "reverted") {
      flags.push({ kind: "scope", path, note: "the user's uncommitted changes to this file were undone" });
    } else if (file.userChanges === "edited") {
      flags.push({
        kind: "scope",
        path,
        note: "the user had uncommitted changes here: check they are intact",
      });
    }
    if (scope !== undefined && scope.length > 0 && !inScope(path, scope)) {
      flags.push({ kind: "scope", path, note: `outside the declared scope (${scope.join(", ")})` });
    }
  }
  return flags;
}
