import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapRunner, createShellTools, LocalRunner } from "../src/index.js";
import { readUntil, startAgent } from "./agent-process.js";
import { call, processesWith, waitFor } from "./helpers.js";

// Nothing a command started outlives an abort of the run or a SIGKILL of the agent: not a background
// job, not a double fork, not a process that left the group with setsid. Each process carries a marker
// in its environment, and /proc is searched for it afterwards.
const bwrap = await BubblewrapRunner.probe();
const pidNamespace = await new LocalRunner().probe();

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-lifetime-"));
});
afterAll(() => cleanup());

let count = 0;
function scenario() {
  const marker = `BRIDLE_LIFE_${process.pid}_${++count}`;
  const command = `export ${marker}=1; setsid sleep 300 & (sleep 300 &); sleep 300 & echo ready; sleep 300`;
  return { marker, command };
}

function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

const runners = [
  {
    name: "LocalRunner",
    available: pidNamespace.available,
    reason: pidNamespace.reason,
    kind: "local" as const,
  },
  { name: "BubblewrapRunner", available: bwrap.available, reason: bwrap.reason, kind: "bwrap" as const },
];

describe.each(runners)("$name", ({ available, reason, kind }) => {
  const skip = available ? "" : ` — SKIPPED: ${reason}`;

  it.skipIf(!available)(`an abort of the run leaves no process behind${skip}`, async () => {
    const shell = await createShellTools({
      runner: kind === "bwrap" ? new BubblewrapRunner() : new LocalRunner(),
      policy: false,
      killGraceMs: 200,
    });
    const { marker, command } = scenario();
    const controller = new AbortController();
    const running = call(shell.bash, { command }, dir, { signal: controller.signal });
    expect(await waitFor(() => processesWith(marker).length >= 3)).toBe(true);
    controller.abort();
    const { result } = await running;
    expect(result.message).toMatch(/aborted/);
    const gone = await waitFor(() => processesWith(marker).length === 0);
    const left = processesWith(marker);
    killAll(left);
    expect(gone, `left running: ${left.join(" ")}`).toBe(true);
  });

  it.skipIf(!available)(`a SIGKILL of the agent leaves no process behind${skip}`, async () => {
    const { marker, command } = scenario();
    const agent = startAgent({ runner: kind, command, cwd: dir, env: { PATH: process.env.PATH } });
    const { stdout } = await readUntil(agent, /ready/);
    expect(stdout).toContain("ready");
    expect(await waitFor(() => processesWith(marker).length >= 3)).toBe(true);
    agent.kill("SIGKILL");
    const gone = await waitFor(() => processesWith(marker).length === 0);
    const left = processesWith(marker);
    killAll(left);
    expect(gone, `left running: ${left.join(" ")}`).toBe(true);
  });
});

describe("without a pid namespace", () => {
  it("a process that left the group survives a SIGKILL of the agent (what the namespace prevents)", async () => {
    const { marker, command } = scenario();
    const agent = startAgent({
      runner: "local",
      pidNamespace: false,
      command,
      cwd: dir,
      env: { PATH: process.env.PATH },
    });
    await readUntil(agent, /ready/);
    expect(await waitFor(() => processesWith(marker).length >= 3)).toBe(true);
    agent.kill("SIGKILL");
    // The first process dies with the agent (setpriv --pdeathsig); what it started is out of reach.
    const firstGone = await waitFor(() => processesWith(marker).length <= 3);
    const left = processesWith(marker);
    killAll(left);
    expect(firstGone).toBe(true);
    expect(left.length).toBeGreaterThan(0);
  });
});
