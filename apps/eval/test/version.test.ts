import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));

test("--version prints the package version", () => {
  const out = execFileSync(process.execPath, ["--experimental-strip-types", main, "--version"], {
    encoding: "utf8",
  });
  expect(out).toMatch(/^bridle-eval \d+\.\d+\.\d+\n$/);
});
