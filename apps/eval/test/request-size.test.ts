// The first request's budget: every profile's default first request, as `bridle run` sends it (coding
// overlay on) and as the interactive session does (the plan tool too), at most 6 KB. A byte count, not a timing: the machine's load cannot move it.
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bridleAgent } from "../src/overhead/agents.js";
import { FIRST_REQUEST_BUDGET, firstRequestSize, PROFILES, SCRIPT } from "../src/overhead/request-size.js";
import { defaultBridleScript } from "../src/overhead/suite.js";

/** The plan tool an interactive session offers (it can switch to plan mode at any turn). */
const PLAN_TOOL: Record<(typeof PROFILES)[number], string> = {
  generic: "exit_plan_mode",
  openai: "exit_plan_mode",
  anthropic: "ExitPlanMode",
};

/** What a first turn needs in each vocabulary: read, write, edit, a shell, a search, and the tool search. */
const LOADED: Record<(typeof PROFILES)[number], readonly string[]> = {
  generic: ["read_file", "write_file", "edit_file", "bash", "grep", "run_check", "tool_search"],
  openai: ["shell", "read_file", "edit_file", "write_file", "grep_files", "run_check", "tool_search"],
  anthropic: ["Bash", "Read", "Write", "Edit", "Grep", "run_check", "ToolSearch"],
};

describe("Bridle's first request", () => {
  const script = defaultBridleScript();
  for (const profile of PROFILES) {
    it.skipIf(!existsSync(script))(
      `fits in ${FIRST_REQUEST_BUDGET} bytes with the ${profile} profile and still offers what a first turn needs`,
      async () => {
        const size = await firstRequestSize(bridleAgent(script), profile);
        expect(size.problems).toEqual([]);
        expect(size.tools.map((tool) => tool.name).sort()).toEqual([...LOADED[profile]].sort());
        expect(size.systemBytes).toBeGreaterThan(0);
        // Over budget: `bridle-eval overhead --request-sizes` says which tool or the system prompt grew.
        expect(size.totalBytes).toBeLessThanOrEqual(FIRST_REQUEST_BUDGET);
      },
    );
    // The interactive session types its prompt at a terminal: `script` gives it one.
    it.skipIf(!existsSync(script) || !existsSync(SCRIPT))(
      `fits in ${FIRST_REQUEST_BUDGET} bytes in the interactive session with the ${profile} profile, plan tool included`,
      async () => {
        const size = await firstRequestSize(bridleAgent(script), profile, { interactive: true });
        expect(size.problems).toEqual([]);
        expect(size.tools.map((tool) => tool.name).sort()).toEqual(
          [...LOADED[profile], PLAN_TOOL[profile]].sort(),
        );
        expect(size.totalBytes).toBeLessThanOrEqual(FIRST_REQUEST_BUDGET);
      },
    );
  }
});
