// The official MCP client conformance suite against the bridge, through the runner next to this file.
// The runner drives the built package (dist), as a user would install it: run the package's build first.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PACKAGE = fileURLToPath(new URL("../", import.meta.url));
const DIST = join(PACKAGE, "dist/index.js");
/**
 * The suites: 0.1.16, the current release (2025-03-26 to 2025-11-25), and the 0.2.0 pre-release, which
 * carries the 2026-07-28 scenarios (installed under an alias, beside the other).
 */
const SUITES = [
  {
    version: "0.1.16",
    path: join(PACKAGE, "node_modules/@modelcontextprotocol/conformance/dist/index.js"),
    expectedFailures: "test/conformance/expected-failures.yml",
  },
  {
    version: "0.2.0-alpha.12",
    path: join(PACKAGE, "node_modules/mcp-conformance-2026/dist/index.js"),
    expectedFailures: "test/conformance/expected-failures-2026.yml",
  },
] as const;

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const stale = !existsSync(DIST)
  ? "dist/ is missing"
  : statSync(DIST).mtimeMs < newestSource(join(PACKAGE, "src"))
    ? "dist/ is older than src/"
    : undefined;
if (stale) console.warn(`conformance suite skipped: ${stale}; run the package's build first`);

function suite(path: string, args: readonly string[]): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path, ...args], {
      cwd: PACKAGE,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stdout.on("data", (chunk: Buffer) => {
      log += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, log }));
  });
}

describe.skipIf(stale !== undefined)("MCP client conformance (@modelcontextprotocol/conformance)", () => {
  it.each(SUITES)(
    "$version: passes every client scenario but the expected failures",
    async ({ path, expectedFailures }) => {
      const listed = (await suite(path, ["list"])).log;
      const clientPart = listed.slice(
        listed.indexOf("Client scenarios"),
        listed.indexOf("\n\n", listed.indexOf("Client scenarios")),
      );
      const scenarios = [...clientPart.matchAll(/^\s+- (\S+) \[/gm)].map((match) => match[1] as string);
      expect(scenarios.length).toBeGreaterThanOrEqual(26);
      const output = await mkdtemp(join(tmpdir(), "bridle-mcp-conformance-"));
      const outcomes: string[] = [];
      try {
        // One scenario at a time: sse-retry checks the client's reconnect delay against the clock, which
        // the suite's default of all scenarios at once on a busy machine would put off.
        for (const scenario of scenarios) {
          const run = await suite(path, [
            "client",
            "--command",
            `${JSON.stringify(process.execPath)} test/conformance/client.mjs`,
            "--scenario",
            scenario,
            "--expected-failures",
            expectedFailures,
            "-o",
            output,
          ]);
          if (run.code !== 0) outcomes.push(`${scenario}:\n${run.log.slice(-2000)}`);
        }
        expect(outcomes).toEqual([]);
      } finally {
        await rm(output, { recursive: true, force: true });
      }
    },
    // A hang's limit, not a speed target: 48 scenarios one at a time took 466 s on a loaded machine and
    // over 600 s on one loaded more.
    1_200_000,
  );
});
