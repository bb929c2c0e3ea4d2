// The start measurement with the real CLI and a real loopback model: every start counted, none timed.
import { existsSync } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { type AgentSpec, bridleAgent } from "../src/overhead/agents.js";
import { formatStarts, measureStarts } from "../src/overhead/start.js";
import { defaultBridleScript } from "../src/overhead/suite.js";
import { BIN, runBin } from "./cli.js";

const script = defaultBridleScript();

describe("the start measurement", () => {
  it.skipIf(!existsSync(script))(
    "starts Bridle's CLI in one workspace and home, and reports each start to its first request",
    async () => {
      const result = await measureStarts([bridleAgent(script)], { spawns: 2 });
      const row = result.rows[0];
      expect(row?.problems).toEqual([]);
      expect(row?.startsMs).toHaveLength(2);
      expect(row?.startsMs.every((ms) => Number.isFinite(ms) && ms > 0)).toBe(true);
      expect(Number.isFinite(result.nodeMs)).toBe(true);
      expect(formatStarts(result, 2)).toMatch(/\| bridle \| [^|]+ \| 2 \| \d+ \|/);
    },
    120_000,
  );

  it.skipIf(!existsSync(script) || !existsSync(BIN))(
    "`--start --cpu-prof DIR` profiles every start and says the load it ran under",
    async () => {
      const { dir, cleanup } = await tempWorkspace("bridle-start-prof-");
      try {
        const profiles = join(dir, "profiles");
        // A home of its own: no peer agent installed there, so only Bridle starts.
        await mkdir(join(dir, "home"));
        const run = await runBin(
          ["overhead", "--start", "2", "--no-install", "--bridle", script, "--cpu-prof", profiles],
          { cwd: dir, env: { HOME: join(dir, "home") } },
        );
        for (const peer of ["pi", "claude-code", "codex"]) {
          expect(run.stderr).toContain(`${peer}: not installed in ~/.cache/bridle-bench, skipped`);
        }
        expect(run.code).toBe(0);
        expect(run.stdout).toMatch(/\| bridle \| [^|]+ \| 2 \| \d+ \|/);
        expect(run.stdout).toMatch(/load average \d+\.\d, \d+\.\d, \d+\.\d over 1, 5 and 15 minutes/);
        const written = (await readdir(profiles)).filter((name) => name.endsWith(".cpuprofile"));
        expect(written).toHaveLength(2);
      } finally {
        await cleanup();
      }
    },
    180_000,
  );

  it.skipIf(!existsSync(script) || !existsSync(BIN))(
    "`--sandbox` starts Bridle with the sandbox chosen, and refuses a mode it does not know",
    async () => {
      const { dir, cleanup } = await tempWorkspace("bridle-start-sandbox-");
      try {
        await mkdir(join(dir, "home"));
        const env = { HOME: join(dir, "home") };
        const run = await runBin(
          ["overhead", "--start", "1", "--no-install", "--bridle", script, "--sandbox", "auto"],
          { cwd: dir, env },
        );
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toMatch(/\| bridle \| [^|]+ \| 1 \| \d+ \|/);
        expect(run.stdout).toMatch(/overhead --start 1 --sandbox auto \(load average/);
        const bad = await runBin(["overhead", "--start", "1", "--sandbox", "nope"], { cwd: dir, env });
        expect(bad.code).toBe(2);
        expect(bad.stderr).toMatch(/--sandbox takes auto, bwrap, off/);
        const alone = await runBin(["overhead", "--request-sizes", "--sandbox", "auto"], { cwd: dir, env });
        expect(alone.code).toBe(2);
        expect(alone.stderr).toMatch(/--sandbox goes with --start/);
      } finally {
        await cleanup();
      }
    },
    180_000,
  );

  it("reports an agent that never asks the model as a problem, not a figure", async () => {
    const silent: AgentSpec = {
      name: "silent",
      script: process.execPath,
      version: "0",
      launch: () => ({ args: ["-e", "0"], env: {} }),
    };
    const result = await measureStarts([silent], { spawns: 1 });
    expect(result.rows[0]?.startsMs).toEqual([]);
    expect(result.rows[0]?.problems[0]).toMatch(/silent: no first request \(exit 0\)/);
  });
});
