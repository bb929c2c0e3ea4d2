import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AnyTool, Workspace } from "@bridle/core";
import { CommandPolicy } from "@bridle/shell-policy";
import { execa } from "execa";
import { afterAll, test } from "vitest";
import {
  BubblewrapRunner,
  type CommandRunner,
  createShellTools,
  LocalRunner,
  sandboxPolicy,
} from "../src/index.js";

// What the bash tool adds to a command: the policy check (parse + judge), the cwd check, the process-group
// launcher, output capture and progress, result shaping. Each group runs the same `true` both ways.
// The machine is shared, so load drifts between one bench's window and the next: the interleaved
// benches alternate the sides call by call and the medians printed at the end are the figures to quote.

const dir = mkdtempSync(join(tmpdir(), "bridle-shell-bench-"));
const workspace = new Workspace(dir);
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
let calls = 0;

async function viaTool(tool: AnyTool, command = "true"): Promise<void> {
  const parsed = tool.inputSchema.parse({ command });
  if (tool.needsApproval)
    await tool.needsApproval(parsed, { runId: "bench", workspace, signal: new AbortController().signal });
  await tool.execute(parsed, {
    signal: new AbortController().signal,
    workspace,
    runId: "bench",
    toolCallId: `c${++calls}`,
    progress: () => {},
  });
}

const local = await createShellTools();
const localNoPolicy = await createShellTools({ policy: false });
const localUntracked = await createShellTools({ runner: new LocalRunner({ trackProcessTree: false }) });
// The price of hiding every other process (and its environment) from the command: setpriv + unshare + init.
const localShared = new LocalRunner({ pidNamespace: false });
const probe = await BubblewrapRunner.probe();
const bwrapRunner = new BubblewrapRunner();
const sandboxed = probe.available ? await createShellTools({ runner: bwrapRunner }) : undefined;
const bwrapArgs = await bwrapRunner.args({ cwd: dir, writableRoots: [dir] }, sandboxPolicy());

const direct = {
  // stdin ignored as the tool does: with execa's default stdin pipe, a spawn takes hundreds of ms longer here.
  local: () => execa("/bin/bash", ["-c", "true"], { cwd: dir, env, extendEnv: false, stdin: "ignore" }),
  bwrap: () =>
    execa("bwrap", [...bwrapArgs, "--", "/bin/bash", "-c", "true"], {
      cwd: dir,
      env,
      extendEnv: false,
      stdin: "ignore",
    }),
};

const localRunner = new LocalRunner();
// Every command started from nothing: the isolation chain (setpriv, unshare, init) on the command's path.
const coldRunner = new LocalRunner({ warmStart: false });
const policyDefaults = sandboxPolicy();
async function runnerOnly(runner: CommandRunner): Promise<void> {
  const running = await runner.start(
    { command: "true", cwd: dir, writableRoots: [dir], timeoutMs: 10_000 },
    policyDefaults,
  );
  await running.done;
}

const samples: Record<string, number[]> = {};
async function timed(name: string, run: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await run();
  const list = samples[name] ?? [];
  list.push(performance.now() - start);
  samples[name] = list;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

test("local: spawn `true` directly vs through the bash tool (interleaved)", async ({ bench }) => {
  await bench("alternate: execa bash -c / bash tool without policy / bash tool with policy", async () => {
    await timed("local: execa bash -c true", direct.local);
    await timed("local: LocalRunner alone (own pid namespace)", () => runnerOnly(localRunner));
    await timed("local: LocalRunner alone, cold (warmStart false)", () => runnerOnly(coldRunner));
    await timed("local: LocalRunner alone, pidNamespace false", () => runnerOnly(localShared));
    await timed("local: bash tool, policy off", () => viaTool(localNoPolicy.bash));
    await timed("local: bash tool, policy on", () => viaTool(local.bash));
    await timed("local: bash tool, policy on, no tracking cgroup", () => viaTool(localUntracked.bash));
  }).run({ time: 8_000, warmupIterations: 3 });
});

test.skipIf(!sandboxed)(
  `bubblewrap: spawn \`true\` directly vs through the bash tool${probe.available ? "" : ` (skipped: ${probe.reason})`}`,
  async ({ bench }) => {
    await bench("alternate: bwrap directly / bash tool with BubblewrapRunner", async () => {
      await timed("bwrap: execa bwrap … bash -c true", direct.bwrap);
      await timed("bwrap: BubblewrapRunner alone", () => runnerOnly(bwrapRunner));
      if (sandboxed) await timed("bwrap: bash tool, policy on", () => viaTool(sandboxed.bash));
    }).run({ time: 8_000, warmupIterations: 3 });
  },
);

// A long compound command: about 60 sub-commands (just under the default budget of 64) through lists,
// pipelines, substitutions, find -exec and wrappers; and a 200-command chain, which fails closed to ask.
const parts = [
  "git status --short",
  "ls -la src | grep ts | wc -l",
  "cat README.md | head -n 20",
  "echo $(date) > out.txt",
  "find . -name '*.ts' -exec grep -l foo {} +",
  "env LC_ALL=C sort src/a.ts | uniq -c",
];
const longCommand = Array.from({ length: 27 }, (_, i) => parts[i % parts.length]).join(" && ");
const overBudget = Array.from({ length: 200 }, () => "ls -la").join(" && ");
const shortCommand = "git status";
const policy = new CommandPolicy();
const subcommands = (await policy.check(longCommand, workspace)).subcommands.length;

test(`command policy (the long command has ${longCommand.length} characters, ${subcommands} sub-commands)`, async ({
  bench,
}) => {
  await bench("check a short command (git status)", async () => {
    await timed("policy: git status", () => policy.check(shortCommand, workspace));
  }).run();
  await bench("check the long compound command", async () => {
    await timed(`policy: ${subcommands} sub-commands`, () => policy.check(longCommand, workspace));
  }).run();
  await bench("check a 200-command chain (fails closed to ask)", async () => {
    await timed("policy: 200-command chain", () => policy.check(overBudget, workspace));
  }).run();
});

afterAll(() => {
  const rows = Object.entries(samples).map(([name, values]) => ({
    name,
    "median ms": Number(median(values).toFixed(3)),
    samples: values.length,
  }));
  console.log("\nmedian ms per call (interleaved where paired):");
  console.table(rows);
  const ratio = (a: string, b: string) => {
    const x = samples[a];
    const y = samples[b];
    if (x && y)
      console.log(
        `${a} / ${b}: ${(median(x) / median(y)).toFixed(2)}x (+${(median(x) - median(y)).toFixed(2)} ms)`,
      );
  };
  ratio("local: bash tool, policy on", "local: execa bash -c true");
  ratio("local: bash tool, policy off", "local: execa bash -c true");
  ratio("bwrap: bash tool, policy on", "bwrap: execa bwrap … bash -c true");
  ratio("local: bash tool, policy on, no tracking cgroup", "local: execa bash -c true");
  ratio("local: LocalRunner alone (own pid namespace)", "local: execa bash -c true");
  ratio("local: LocalRunner alone, cold (warmStart false)", "local: execa bash -c true");
  ratio("local: LocalRunner alone (own pid namespace)", "local: LocalRunner alone, cold (warmStart false)");
  ratio("bwrap: BubblewrapRunner alone", "bwrap: execa bwrap … bash -c true");
  rmSync(dir, { recursive: true, force: true });
});
