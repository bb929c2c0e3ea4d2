// The start measurement with the real CLI and a real loopback model: every start counted, none timed.
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type AgentSpec, bridleAgent } from "../src/overhead/agents.js";
import { formatStarts, measureStarts } from "../src/overhead/start.js";
import { defaultBridleScript } from "../src/overhead/suite.js";

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
