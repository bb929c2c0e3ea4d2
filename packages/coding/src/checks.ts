import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { readRegularFile } from "@bridle/core/node";
import { CHECK_KINDS, type CheckKind, type ChecksDetectedFact, type DetectedCheck } from "./facts.js";

// Project files are read as data, bounded: a huge or odd file yields no checks rather than a stall.
const MAX_PROJECT_FILE = 512 * 1024;

/** A project file as text, or undefined for one missing, linked, odd or too large. */
async function readSmall(path: string): Promise<string | undefined> {
  try {
    // A link is not followed: a repository's package.json pointing elsewhere names no checks.
    if ((await lstat(path)).isSymbolicLink()) return undefined;
    return (await readRegularFile(path, MAX_PROJECT_FILE)).bytes.toString("utf8");
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

// The script names each kind answers to, most specific first.
const SCRIPT_NAMES: Record<CheckKind, readonly string[]> = {
  test: ["test"],
  lint: ["lint"],
  typecheck: ["typecheck", "type-check", "types", "tsc"],
  build: ["build"],
};

const LOCKFILE_MANAGERS: readonly (readonly [string, string])[] = [
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
  ["package-lock.json", "npm"],
  ["npm-shrinkwrap.json", "npm"],
];

const KNOWN_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);

async function packageManager(root: string, manifest: Record<string, unknown>): Promise<string> {
  for (const [file, manager] of LOCKFILE_MANAGERS) if (await exists(join(root, file))) return manager;
  const declared = typeof manifest.packageManager === "string" ? manifest.packageManager.split("@")[0] : "";
  return declared && KNOWN_MANAGERS.has(declared) ? declared : "npm";
}

async function fromPackageJson(root: string): Promise<{ checks: DetectedCheck[]; manager?: string }> {
  const text = await readSmall(join(root, "package.json"));
  if (text === undefined) return { checks: [] };
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    return { checks: [] };
  }
  if (typeof manifest !== "object" || manifest === null) return { checks: [] };
  const record = manifest as Record<string, unknown>;
  const scripts = record.scripts;
  if (typeof scripts !== "object" || scripts === null) return { checks: [] };
  const manager = await packageManager(root, record);
  const checks: DetectedCheck[] = [];
  for (const kind of CHECK_KINDS) {
    const name = SCRIPT_NAMES[kind].find(
      (candidate) => typeof (scripts as Record<string, unknown>)[candidate] === "string",
    );
    if (name === undefined) continue;
    const body = (scripts as Record<string, string>)[name] as string;
    checks.push({ kind, command: `${manager} run ${name}`, source: `package.json scripts.${name}`, body });
  }
  return { checks, manager };
}

async function fromMakefile(root: string): Promise<DetectedCheck[]> {
  for (const file of ["GNUmakefile", "makefile", "Makefile"]) {
    const text = await readSmall(join(root, file));
    if (text === undefined) continue;
    const targets = new Set<string>();
    for (const match of text.matchAll(/^([A-Za-z0-9_.-]+)\s*:(?!=)/gm)) targets.add(match[1] as string);
    const names: Record<CheckKind, readonly string[]> = { ...SCRIPT_NAMES, lint: ["lint", "check"] };
    return CHECK_KINDS.flatMap((kind) => {
      const target = names[kind].find((name) => targets.has(name));
      return target ? [{ kind, command: `make ${target}`, source: `${file} target ${target}` }] : [];
    });
  }
  return [];
}

async function fromPyproject(root: string): Promise<DetectedCheck[]> {
  const text = await readSmall(join(root, "pyproject.toml"));
  if (text === undefined) return [];
  const has = (table: string) => new RegExp(`^\\[tool\\.${table}(\\]|\\.)`, "m").test(text);
  const mentions = (name: string) => new RegExp(`["'\\s]${name}[\\s"'<>=~\\[]`).test(text);
  const checks: DetectedCheck[] = [];
  if (has("pytest") || mentions("pytest")) {
    checks.push({ kind: "test", command: "pytest", source: "pyproject.toml (pytest)" });
  }
  if (has("ruff") || mentions("ruff")) {
    checks.push({ kind: "lint", command: "ruff check .", source: "pyproject.toml (ruff)" });
  }
  if (has("mypy") || mentions("mypy")) {
    checks.push({ kind: "typecheck", command: "mypy .", source: "pyproject.toml (mypy)" });
  }
  return checks;
}

async function fromCargo(root: string): Promise<DetectedCheck[]> {
  if ((await readSmall(join(root, "Cargo.toml"))) === undefined) return [];
  return [
    { kind: "test", command: "cargo test", source: "Cargo.toml" },
    { kind: "lint", command: "cargo clippy", source: "Cargo.toml" },
    { kind: "typecheck", command: "cargo check", source: "Cargo.toml" },
    { kind: "build", command: "cargo build", source: "Cargo.toml" },
  ];
}

async function fromGoMod(root: string): Promise<DetectedCheck[]> {
  if ((await readSmall(join(root, "go.mod"))) === undefined) return [];
  return [
    { kind: "test", command: "go test ./...", source: "go.mod" },
    { kind: "lint", command: "go vet ./...", source: "go.mod" },
    { kind: "build", command: "go build ./...", source: "go.mod" },
  ];
}

/**
 * The project's checks, found in its files: package.json scripts (run with the lockfile's package
 * manager), Makefile targets, pyproject.toml tools, Cargo.toml, go.mod. For each kind the first source
 * in that order wins; the others stay listed as alternatives.
 */
export async function detectChecks(root: string): Promise<ChecksDetectedFact> {
  const pkg = await fromPackageJson(root);
  const all = [
    ...pkg.checks,
    ...(await fromMakefile(root)),
    ...(await fromPyproject(root)),
    ...(await fromCargo(root)),
    ...(await fromGoMod(root)),
  ];
  return { checks: all, ...(pkg.manager ? { packageManager: pkg.manager } : {}) };
}

/** The command a check kind runs: the first detected for it. */
export function chooseCheck(detected: ChecksDetectedFact, kind: CheckKind): DetectedCheck | undefined {
  return detected.checks.find((check) => check.kind === kind);
}
