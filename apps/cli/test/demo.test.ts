import { access, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-demo-"));
  // No API key: the demo needs none.
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
});
afterAll(async () => {
  await cleanup();
});

describe("bridle demo", () => {
  it("says what is recorded and what is real, shows the prompt, the failing assertion and the fix", async () => {
    const run = await runCli(["demo"], { cwd: dir, env });
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("the model's turns are a recorded script");
    expect(run.stderr).toMatch(/Token counts shown are illustrative/);
    expect(run.stderr).toContain(
      "prompt:     The cart tests fail. Find the bug and fix it, then show the tests passing.",
    );
    // The first test run fails and its assertion is shown; the second passes after the real edit.
    expect(run.stderr).toMatch(/│ FAIL a small order pays shipping on top: expected 3596, got 2598/);
    expect(run.stderr).toMatch(/✓ edit_file/);
    expect(run.stderr).toMatch(/│ all cart tests passed/);
    // The recorded script's model has its own row: no unknown-model warning, and a cost that is true.
    expect(run.stderr).not.toMatch(/warning|not in bridle's model table|cost unknown/);
    // Each turn is named before its text and tool calls; its tokens and cost follow them.
    expect(run.stderr).toMatch(
      /^\[turn 1\]\n(?:.*\n)*? {2}1\.2k in · 60 out · \$0\.0000\n(?:.*\n)*?\[turn 2\]\n/m,
    );
    // The passing test ran as the project's declared check, so the handoff counts it as verified.
    expect(run.stderr).toMatch(
      /✓ run_check .*test passed: npm run test \(from package\.json scripts\.test\)/,
    );
    expect(run.stderr).toContain("handoff: DONE (checks passed)");
    expect(run.stderr).toMatch(/checks: test passed/);
    expect(run.stderr).not.toContain("UNVERIFIED");
    expect(run.stderr).toContain("bridle demo --keep leaves them");
    expect(run.stderr.trimEnd().split("\n").at(-1)).toMatch(/bridle run ".*" --cwd \/path\/to\/your\/repo$/);
    const repo = /repository: (\S+)/.exec(run.stderr)?.[1] as string;
    await expect(access(repo)).rejects.toThrow();
  });

  it("names the command the person typed, as ./dev bridle tells it, in what to type next", async () => {
    const run = await runCli(["demo"], { cwd: dir, env: { ...env, BRIDLE_INVOKED_AS: "./dev bridle" } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("./dev bridle demo --keep leaves them");
    expect(run.stderr.trimEnd().split("\n").at(-1)).toMatch(/^ {2}\.\/dev bridle run ".*" --cwd /);
  });

  it("--keep leaves the repository, fixed, and a session that bridle sessions show reads", async () => {
    const run = await runCli(["demo", "--keep"], { cwd: dir, env });
    expect(run.code).toBe(0);
    const repo = /kept: the repository at (\S+)/.exec(run.stderr)?.[1] as string;
    try {
      expect(await readFile(join(repo, "src", "cart.js"), "utf8")).toContain("+ shipping(beforeDiscount)");
      const command = /the session: (bridle sessions show \S+)/.exec(run.stderr)?.[1] as string;
      expect(command).toBeTruthy();
      const show = await runCli(command.split(" ").slice(1), { cwd: dir, env });
      expect(show.code).toBe(0);
      expect(show.stdout).toContain("user: The cart tests fail.");
      expect(show.stdout).toContain("→ edit_file");
    } finally {
      await rm(join(repo, ".."), { recursive: true, force: true });
    }
  });
});
