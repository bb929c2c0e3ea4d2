import { randomBytes } from "node:crypto";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapRunner, LocalRunner } from "../src/index.js";
import { readUntil, startAgent } from "./agent-process.js";

// A real agent process holds a canary API key in the environment it was started with (and its parent
// shell too), and a canary word on its command line; the command it runs looks for both in every
// /proc/<pid>/environ and /proc/<pid>/cmdline it can read. The canary never appears whole in the
// command's own text or arguments, so the command cannot find itself.
const suffix = randomBytes(6).toString("hex");
const canary = `BRIDLE-CANARY-${suffix}`;
const SCAN = [
  `P=BRIDLE-CANARY-; P="$P"${suffix}`,
  'found=""',
  "for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do",
  `  content=$(tr '\\0' '\\n' < "$f" 2>/dev/null) || continue`,
  '  case "$content" in *"$P"*) found="$found $f";; esac',
  "done",
  'echo "found:$found"',
  'echo "processes: $(ls -d /proc/[0-9]* | wc -l)"',
].join("\n");

const pidNamespace = await new LocalRunner().probe();
const bwrap = await BubblewrapRunner.probe();

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-secrets-"));
});
afterAll(() => cleanup());

async function scanFrom(runner: "local" | "bwrap", options: { pidNamespace?: boolean } = {}) {
  const agent = startAgent({
    runner,
    command: SCAN,
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_API_KEY: canary, CANARY_TOKEN: canary },
    argv: [`--api-key=${canary}`],
    throughShell: true,
    ...options,
  });
  const { stdout, stderr } = await readUntil(agent, /^exit /m);
  expect(stderr).toMatch(/^exit /m);
  const found = /found:(.*)/.exec(stdout)?.[1]?.trim() ?? "missing";
  return { found, processes: Number(/processes: (\d+)/.exec(stdout)?.[1]) };
}

describe("no command reads the agent's API key from any process", () => {
  it("the scan finds the key when commands share the agent's pid namespace (the test can fail)", async () => {
    const { found } = await scanFrom("local", { pidNamespace: false });
    // The agent's environ and cmdline, and its parent shell's environ.
    expect(found).toMatch(/\/proc\/\d+\/environ/);
    expect(found).toMatch(/\/proc\/\d+\/cmdline/);
  });

  it.skipIf(!pidNamespace.available)(
    `LocalRunner: its own pid namespace hides the agent and every ancestor${pidNamespace.available ? "" : ` — SKIPPED: ${pidNamespace.reason}`}`,
    async () => {
      const { found, processes } = await scanFrom("local");
      expect(found).toBe("");
      expect(processes).toBeLessThan(8);
    },
  );

  it.skipIf(!bwrap.available)(
    `BubblewrapRunner: likewise${bwrap.available ? "" : ` — SKIPPED: ${bwrap.reason}`}`,
    async () => {
      const { found, processes } = await scanFrom("bwrap");
      expect(found).toBe("");
      expect(processes).toBeLessThan(8);
    },
  );

  it("says so when the local runner has no pid namespace", async () => {
    const limits = await new LocalRunner({ pidNamespace: false }).enforcement({
      shell_enabled: true,
      network: "disabled",
      allowed_env: [],
      max_execution_ms: 1000,
      max_stdout_bytes: 100,
      max_stderr_bytes: 100,
    });
    const processes = limits.find((limit) => limit.limit === "other_processes");
    expect(processes?.enforced).toBe(false);
    expect(processes?.how).toMatch(/environments/);
  });
});
