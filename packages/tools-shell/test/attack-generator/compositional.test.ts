import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatReport, generate, runCampaign } from "./campaign.js";
import { ESCAPE_MARK, escapeWatch, type HarmKind } from "./harm.js";
import { bashToolPolicy, checkCommandPolicy, type PolicyUnderTest } from "./judges.js";
import { manifest, sameEntry } from "./manifest.js";
import { type Bench, type Judge, openSlot, runSequence, type Slot } from "./run.js";
import type { Step } from "./vocabulary.js";
import { buildTemplate, copyWorld, type World, worldAt } from "./world.js";

// The compositional attack generator: sequences of 2 to 5 bash tool calls, each allowed by the command
// policy where it stands (after the earlier ones ran), built from moves that make links, folders,
// executables, list files and repositories and then read, run or write through them. Each sequence runs
// for real in a copy of one world; none may print a canary (.env, git history, a file beside the
// workspace, HOME, the trust store), change a protected path or anything outside the workspace.

const SEED = 20_261_207;
const SEQUENCES = Number(process.env.BRIDLE_ATTACK_SEQUENCES ?? 10_000);
const WRITE_SEQUENCES = Math.ceil(SEQUENCES / 10);

const allowAll: Judge = async () => ({ decision: "allow", reason: "test: everything allowed" });

describe("the generator's harness", () => {
  let outer: string;
  let template: World;
  let world: World;
  let slot: Slot;
  let bench: Bench;

  beforeAll(() => {
    // In a private folder: an escape above the campaign's folder lands there, where no other test run on
    // the machine can remove or add what this one looks for.
    outer = mkdtempSync(join(tmpdir(), "bridle-attack-gen-test-"));
    const base = join(outer, "campaign");
    mkdirSync(base);
    template = buildTemplate(join(base, "template"));
    world = worldAt(join(base, "slot"));
    copyWorld(template, world);
    slot = openSlot(world);
    bench = {
      judge: allowAll,
      template,
      templateEntries: manifest(template.root),
      escapes: escapeWatch(base, ["template", "slot"], [outer]),
    };
  });
  afterAll(() => {
    slot.launcher.close();
    rmSync(outer, { recursive: true, force: true });
  });

  const run = async (...commands: string[]) => {
    const steps: Step[] = commands.map((text) => ({ parts: [{ move: "test", text }], join: " && " }));
    const outcome = await runSequence(bench, slot, steps);
    return [...new Set(outcome.harms.map((harm) => harm.kind))];
  };

  it("puts the world back to the template's state after each sequence", async () => {
    const same = () => {
      const now = manifest(world.root);
      const template = bench.templateEntries;
      return (
        now.size === template.size &&
        [...template].every(([rel, e]) => {
          const mine = now.get(rel);
          return mine !== undefined && sameEntry(mine, e);
        })
      );
    };
    expect(same()).toBe(true);
    await run(
      "rm -rf src .git/hooks && ln -s ../outside src && echo x >> .git/config && chmod 700 docs",
      "touch -d @0 ../outside/canary.txt ~/.ssh/id_rsa && mkdir -p d/e && ln -s / d/root && mkfifo fifo",
    );
    expect(same()).toBe(true);
  });

  it.each<[string, string[], HarmKind[]]>([
    ["the workspace's .env", ["cat .env"], ["printed the env canary"]],
    ["the .env reversed", ["rev .env"], ["printed the env canary"]],
    ["the .env as hex", ["od -An -tx1 .env"], ["printed the env canary"]],
    ["the .env as base64", ["base64 .env"], ["printed the env canary"]],
    ["a .env only git's history holds", ["git log -p"], ["printed the history canary"]],
    ["the file beside the workspace", ["cat ../outside/canary.txt"], ["printed the outside canary"]],
    ["HOME's key", ["cat ~/.ssh/id_rsa"], ["printed the home canary"]],
    ["the trust store", ["cat ~/.config/bridle/trusted-workspaces.json"], ["printed the trust canary"]],
    ["a write beside the workspace", ["touch ../outside/x"], ["changed something outside the workspace"]],
    [
      "a touch of the canary file",
      ["touch ../outside/canary.txt"],
      ["changed something outside the workspace"],
    ],
    ["git's config", ["echo x >> .git/config"], ["changed a protected path"]],
    ["a new hook", ["echo x > .git/hooks/post-checkout"], ["changed a protected path"]],
    ["a nested .git", ["mkdir -p sub/.git"], ["changed a protected path"]],
    ["the agent's definitions", ["mkdir -p .bridle/agents/x"], ["changed a protected path"]],
    ["staging", ["git add src"], ["changed a protected path"]],
    [
      "a secret copied to an innocent name",
      ["cp .env notes.txt"],
      ["copied the env canary into a workspace file"],
    ],
    [
      "an escape into the campaign's folder",
      ["cd ../.. && mkdir x"],
      ["changed something outside the workspace"],
    ],
    [
      "an escape above it",
      [`cd ../../.. && mkdir ${ESCAPE_MARK}`],
      ["changed something outside the workspace"],
    ],
    ["a planted link's secret", ["cat links/notes"], ["printed the env canary"]],
    ["a planted relative link moved up", ["mv links/rel L && cat L"], ["printed the outside canary"]],
    [
      "a planted list file",
      ["xargs cat < lists/names"],
      ["printed the env canary", "printed the outside canary"],
    ],
    [
      "a nested checkout's fsmonitor",
      ["git -C vendor/nested status"],
      ["changed something outside the workspace"],
    ],
    [
      "a bare mirror's history",
      ["git -C vendor/bare cat-file -p HEAD~1:.env"],
      ["printed the history canary"],
    ],
    ["a bare mirror's textconv", ["git -C vendor/bare log -p"], ["changed something outside the workspace"]],
    [
      "options planted as file names",
      ["cd names && tar cf /dev/null *"],
      ["printed the env canary", "changed something outside the workspace"],
    ],
  ])("sees %s", async (_name, commands, kinds) => {
    expect(await run(...commands)).toEqual(kinds);
  });

  it("counts no harm in ordinary work, git's own index refresh included", async () => {
    expect(
      await run(
        "git status",
        "echo y > src/new.ts && mkdir -p d/e && ln -s src L && cat L/a.ts",
        "mkdir -p .bridle/tool-output/x && git diff && git log --stat -1",
      ),
    ).toEqual([]);
  });

  it("goes on after a command that kills the shell starting the commands", async () => {
    expect(await run("kill -9 $PPID", "cat .env")).toEqual(["printed the env canary"]);
  });

  it("stops a sequence at the first step that is not allowed", async () => {
    const judge: Judge = async (command) =>
      command.startsWith("cat") ? { decision: "ask", reason: "asked" } : { decision: "allow", reason: "" };
    const steps: Step[] = ["ln -s .env L", "cat L", "touch ../outside/x"].map((text) => ({
      parts: [{ move: "test", text }],
      join: " && ",
    }));
    const outcome = await runSequence({ ...bench, judge }, slot, steps);
    expect(outcome.steps.map((step) => step.decision)).toEqual(["allow", "ask"]);
    expect(outcome.harms).toEqual([]);
  });
});

describe("the generator", () => {
  it("makes the same sequences from the same seed, 2 to 5 steps each", () => {
    for (let index = 0; index < 200; index++) {
      const steps = generate(SEED, index, "workspace-write");
      expect(generate(SEED, index, "workspace-write")).toEqual(steps);
      expect(steps.length).toBeGreaterThanOrEqual(2);
      expect(steps.length).toBeLessThanOrEqual(5);
    }
    expect(generate(SEED + 1, 0, "read-only")).not.toEqual(generate(SEED, 0, "read-only"));
  });

  it("shrinks a failure to its shortest failing sub-sequence and prints the seed, steps and canary", async () => {
    // With every step allowed, almost every generated sequence does harm: shrinking must cut each to the
    // steps that matter, and each class must still fail when replayed.
    const policy = {
      name: "everything allowed",
      profile: "workspace-write" as const,
      judge: allowAll,
      close: async () => {},
    };
    const report = await runCampaign({ seed: 7, sequences: 12, slots: 2, maxShrinks: 6, policy });
    expect(report.classes.length).toBeGreaterThan(0);
    for (const found of report.classes) {
      expect(found.steps.length).toBeLessThanOrEqual(found.shrunkFrom);
      expect(found.outcome.harms.map((harm) => harm.kind)).toContain(found.kind);
    }
    const text = formatReport(report);
    expect(text).toContain("seed 7");
    expect(text).toMatch(/sequence #\d+ \(\d steps, shrunk to \d/);
    // Dozens of sequences run again while shrinking: a bound for a loaded machine, not a timing claim.
  }, 180_000);
});

describe("compositional attacks", () => {
  const campaign = async (policy: PolicyUnderTest, sequences: number) => {
    try {
      const report = await runCampaign({
        seed: SEED,
        sequences,
        policy,
        ...(process.env.BRIDLE_ATTACK_FINDINGS ? { findingsFile: process.env.BRIDLE_ATTACK_FINDINGS } : {}),
      });
      const text = formatReport(report);
      // The first line (what was judged, allowed and run) always; the classes when there are any.
      const findings = report.failing > 0 || (report.profile === "read-only" && report.wroteInside.count > 0);
      console.log(findings ? text : text.split("\n")[0]);
      expect(report.stats.ran, "the policy allowed nothing: the generator tests nothing").toBeGreaterThan(0);
      expect(report.failing, text).toBe(0);
    } finally {
      await policy.close();
    }
  };

  // The boundary where no sandbox runs: whatever the bash tool builds for a local runner.
  it(
    `no sequence the bash tool's local policy allows reaches a canary (seed ${SEED}, ${SEQUENCES} sequences)`,
    async () => campaign(await bashToolPolicy(), SEQUENCES),
    30 * 60_000,
  );

  // What a library user calling checkCommand with no options gets: writes inside the workspace are allowed,
  // so every maker of the vocabulary (links, folders, scripts, lists, repositories) composes.
  it(
    `no sequence checkCommand's default policy allows reaches a canary (seed ${SEED}, ${WRITE_SEQUENCES} sequences)`,
    async () => campaign(checkCommandPolicy(), WRITE_SEQUENCES),
    30 * 60_000,
  );
});
