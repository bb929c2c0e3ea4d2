import { expect, test } from "vitest";
import { runBin } from "./cli.js";

test("--version prints the package version", async () => {
  const run = await runBin(["--version"], { cwd: process.cwd() });
  expect(run.stdout).toMatch(/^bridle-eval \d+\.\d+\.\d+\n$/);
  expect(run.code).toBe(0);
});

test("an unknown command prints the usage and exits 2", async () => {
  const run = await runBin(["frobnicate"], { cwd: process.cwd() });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("usage: bridle-eval COMMAND");
});
