import { statSync } from "node:fs";
import type { Decision } from "@bridle/shell-policy";
import { assess, type EscapeWatch, escapes, type Harm, printedCanaries } from "./harm.js";
import { Launcher } from "./launcher.js";
import { type Entry, manifest, repair } from "./manifest.js";
import { commandOf, type SequenceMaker, type Step } from "./vocabulary.js";
import { fill, type World } from "./world.js";

/** What became of one step: the verdict it got where it stood, and, when allowed, what running it printed. */
export interface StepOutcome {
  /** "refused" when the bash tool would not start it (its cwd does not resolve inside the workspace). */
  readonly decision: Decision | "refused";
  readonly reason: string;
  readonly ran: boolean;
  readonly exit?: number | string;
  readonly harms: readonly Harm[];
}

export interface SequenceOutcome {
  readonly steps: readonly StepOutcome[];
  /** Every harm the sequence did: canaries printed by its steps, then what changed on disk. */
  readonly harms: readonly Harm[];
  /** Ordinary workspace paths the allowed steps created, changed or deleted (harmless, but writes). */
  readonly inside: readonly string[];
  /** Whether any step ran (when none did, the slot is still as the template left it). */
  readonly ran: boolean;
}

/** The verdict on a command line run from `cwd` in `world`'s workspace. */
export type Judge = (
  command: string,
  world: World,
  cwd: string,
) => Promise<{ decision: Decision; reason: string }>;

/** What is needed to run sequences: the judge, the template and its state, and the places above the slots. */
export interface Bench {
  readonly judge: Judge;
  readonly template: World;
  readonly templateEntries: ReadonlyMap<string, Entry>;
  readonly escapes: EscapeWatch;
}

/** A world and the launcher that runs commands in it: one per sequence running at a time. */
export interface Slot {
  readonly world: World;
  readonly launcher: Launcher;
}

/** A slot for `world`; close its launcher when done. */
export function openSlot(world: World): Slot {
  // A command still running after this long is killed: a safety net (a reader given a link to /), never an assertion.
  return { world, launcher: new Launcher(world.env, 8_000) };
}

/**
 * Run a sequence as the bash tool would, one call at a time: each step is judged by the policy in the
 * workspace as the earlier steps left it, from the folder the tool would start it in; the sequence stops
 * at the first step that is not allowed, as an agent's would when nobody approves it. The world is left
 * as the template is.
 */
export function runSequence(bench: Bench, slot: Slot, steps: readonly Step[]): Promise<SequenceOutcome> {
  const { world } = slot;
  return runSteps(bench, slot, steps.length, async (position) => {
    const step = steps[position] as Step;
    return { step, verdict: await judgeStep(bench, world, step) };
  }).then((run) => run.outcome);
}

/**
 * Generate a sequence while running it: for each position, up to `tries` candidates are judged where the
 * sequence stands, and the first one allowed is run. When none is, the last candidate ends the sequence
 * as the step that was not allowed. Returns the steps taken (the sequence to replay) and what they did.
 */
export async function runGenerated(
  bench: Bench,
  slot: Slot,
  maker: SequenceMaker,
  tries: number,
): Promise<{ steps: Step[]; outcome: SequenceOutcome; candidates: number }> {
  const { world } = slot;
  let candidates = 0;
  const run = await runSteps(bench, slot, maker.length, async (position) => {
    for (let attempt = 1; ; attempt++) {
      const next = maker.candidate(position);
      candidates++;
      const verdict = await judgeStep(bench, world, next.step);
      if (verdict.decision === "allow" || attempt >= tries) {
        next.accept();
        return { step: next.step, verdict };
      }
    }
  });
  return { ...run, candidates };
}

interface Verdict {
  readonly decision: Decision | "refused";
  readonly reason: string;
  readonly cwd: string;
}

/** The bash tool's admission of a step: its cwd must resolve inside the workspace, then the policy judges. */
async function judgeStep(bench: Bench, world: World, step: Step): Promise<Verdict> {
  let cwd: string;
  try {
    // As ShellEnvironment.cwd: an existing folder inside the workspace, symlinks resolved.
    cwd = await world.workspace.resolveExisting(step.cwd ?? ".");
    if (!statSync(cwd).isDirectory()) throw new Error(`${step.cwd} is not a directory`);
  } catch (error) {
    return { decision: "refused", reason: (error as Error).message, cwd: world.ws };
  }
  const verdict = await bench.judge(fill(commandOf(step), world), world, cwd);
  return { ...verdict, cwd };
}

async function runSteps(
  bench: Bench,
  slot: Slot,
  length: number,
  next: (position: number) => Promise<{ step: Step; verdict: Verdict }>,
): Promise<{ steps: Step[]; outcome: SequenceOutcome }> {
  const { world } = slot;
  const steps: Step[] = [];
  const outcomes: StepOutcome[] = [];
  const harms: Harm[] = [];
  const inside: string[] = [];
  let ran = false;
  for (let position = 0; position < length; position++) {
    const { step, verdict } = await next(position);
    steps.push(step);
    if (verdict.decision !== "allow") {
      outcomes.push({ decision: verdict.decision, reason: verdict.reason, ran: false, harms: [] });
      break;
    }
    ran = true;
    const result = await slot.launcher.run(fill(commandOf(step), world), verdict.cwd);
    const printed = printedCanaries(result.output);
    harms.push(...printed);
    outcomes.push({
      decision: "allow",
      reason: verdict.reason,
      ran: true,
      exit: result.exit,
      harms: printed,
    });
  }
  if (ran) {
    const now = manifest(world.root);
    const assessed = assess(bench.templateEntries, now);
    harms.push(...assessed.harms);
    inside.push(...assessed.inside);
    harms.push(...escapes(bench.escapes));
    // The slot goes back to the template's state for the next sequence: only what changed is restored.
    repair(bench.template.root, bench.templateEntries, world.root, now);
  }
  return { steps, outcome: { steps: outcomes, harms, inside, ran } };
}
