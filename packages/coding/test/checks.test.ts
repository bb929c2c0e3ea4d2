import { execFileSync } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectChecks } from "../src/checks.js";
import { writeFiles } from "./repo.js";

let dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
});

async function project(files: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), "bridle-checks-"));
  dirs.push(dir);
  await writeFiles(dir, files);
  return detectChecks(dir);
}

const brief = (found: Awaited<ReturnType<typeof detectChecks>>) =>
  found.checks.map(({ kind, command, source }) => `${kind}: ${command} <- ${source}`);

describe("detect_checks", () => {
  it("reads package.json scripts with the lockfile's package manager", async () => {
    const scripts = { test: "vitest run", lint: "biome check .", "type-check": "tsc", build: "tsup" };
    for (const [lockfile, manager] of [
      ["pnpm-lock.yaml", "pnpm"],
      ["yarn.lock", "yarn"],
      ["bun.lockb", "bun"],
      ["package-lock.json", "npm"],
    ] as const) {
      const found = await project({ "package.json": JSON.stringify({ scripts }), [lockfile]: "" });
      expect(found.packageManager).toBe(manager);
      expect(brief(found)).toEqual([
        `test: ${manager} run test <- package.json scripts.test`,
        `lint: ${manager} run lint <- package.json scripts.lint`,
        `typecheck: ${manager} run type-check <- package.json scripts.type-check`,
        `build: ${manager} run build <- package.json scripts.build`,
      ]);
      expect(found.checks[0]?.body).toBe("vitest run");
    }
  });

  it("reads Makefile targets, pyproject tools, Cargo.toml and go.mod", async () => {
    expect(brief(await project({ Makefile: "test:\n\tgo test\ncheck: test\nX := 1\n" }))).toEqual([
      "test: make test <- Makefile target test",
      "lint: make check <- Makefile target check",
    ]);
    const py =
      '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n\n[tool.ruff]\nline-length = 100\n\n[tool.mypy]\nstrict = true\n';
    expect(brief(await project({ "pyproject.toml": py }))).toEqual([
      "test: pytest <- pyproject.toml (pytest)",
      "lint: ruff check . <- pyproject.toml (ruff)",
      "typecheck: mypy . <- pyproject.toml (mypy)",
    ]);
    expect(brief(await project({ "Cargo.toml": '[package]\nname = "x"\n' }))).toContain(
      "test: cargo test <- Cargo.toml",
    );
    expect(brief(await project({ "go.mod": "module x\n" }))).toEqual([
      "test: go test ./... <- go.mod",
      "lint: go vet ./... <- go.mod",
      "build: go build ./... <- go.mod",
    ]);
  });

  it("finds nothing in broken or absent project files, without failing", async () => {
    expect((await project({ "package.json": "{ not json" })).checks).toEqual([]);
    expect((await project({ "package.json": JSON.stringify({ scripts: { test: 42 } }) })).checks).toEqual([]);
    expect((await project({ "README.md": "make test" })).checks).toEqual([]);
    expect((await project({ "package.json": "x".repeat(600 * 1024) })).checks).toEqual([]);
  });

  it("reads no project file through a link, nor waits on a FIFO in its place", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), "bridle-checks-elsewhere-"));
    dirs.push(elsewhere);
    await writeFiles(elsewhere, { "package.json": JSON.stringify({ scripts: { test: "vitest" } }) });
    const linked = await mkdtemp(join(tmpdir(), "bridle-checks-"));
    dirs.push(linked);
    await symlink(join(elsewhere, "package.json"), join(linked, "package.json"));
    expect((await detectChecks(linked)).checks).toEqual([]);
    expect((await detectChecks(elsewhere)).checks.map((c) => c.kind)).toContain("test");

    const piped = await mkdtemp(join(tmpdir(), "bridle-checks-"));
    dirs.push(piped);
    execFileSync("mkfifo", [join(piped, "package.json")]);
    // Nobody ever writes to the FIFO: a read that waited on it would never return.
    expect((await detectChecks(piped)).checks).toEqual([]);
  });
});
