import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { escapeWatch, type Harm, type HarmKind } from "./harm.js";
import type { PolicyUnderTest } from "./judges.js";
import { manifest } from "./manifest.js";
import { Random } from "./random.js";
import { type Bench, openSlot, runGenerated, runSequence, type SequenceOutcome, type Slot } from "./run.js";
import { describeStep, type Profile, SequenceMaker, type Step, sequence } from "./vocabulary.js";
import { buildTemplate, copyWorld, placeholders, type World, worldAt } from "./world.js";

export interface CampaignOptions {
  readonly seed: number;
  readonly sequences: number;
  /** Sequences run at once, each in a slot of its own (default 4: the policy judges in this process while the others' commands run). */
  readonly slots?: number;
  /** Failing sequences shrunk at most; later failures that no known class explains are listed unshrunk. */
  readonly maxShrinks?: number;
  /** A markdown file each new class is appended to as it is found (the test prints them all at the end). */
  readonly findingsFile?: string;
  /** Candidates judged for each position before the sequence ends on one not allowed (default 5). */
  readonly tries?: number;
  /** The policy each step is held to. */
  readonly policy: PolicyUnderTest;
}

/** One way through: the shortest sequence found for it, and how many generated sequences it explains. */
export interface FailureClass {
  readonly kind: HarmKind;
  readonly index: number;
  readonly steps: readonly Step[];
  readonly outcome: SequenceOutcome;
  /** The generated sequence it was shrunk from. */
  readonly original: readonly Step[];
  readonly shrunkFrom: number;
  count: number;
}

export interface CampaignReport {
  readonly seed: number;
  readonly sequences: number;
  readonly failing: number;
  readonly classes: readonly FailureClass[];
  /** Failures past the shrink budget that no class explains: kind, sequence index, steps. */
  readonly unexplained: readonly { kind: HarmKind; index: number; steps: readonly Step[] }[];
  /** Failures that did no harm when run again alone (not classes; listed so none is lost). */
  readonly unreproduced: readonly { kind: HarmKind; index: number; steps: readonly Step[] }[];
  /** Candidate steps judged, steps allowed and run, sequences that ran every step, slots repaired. */
  readonly stats: { judged: number; ran: number; completed: number; resets: number };
  readonly legend: string;
  /** The policy's name, as the report prints it, and what it lets through. */
  readonly policy: string;
  readonly profile: Profile;
  /** Sequences whose allowed steps wrote inside the workspace, and the first few of them. */
  readonly wroteInside: {
    count: number;
    examples: { index: number; steps: readonly Step[]; changes: readonly string[] }[];
  };
}

export function generate(seed: number, index: number, profile: Profile): Step[] {
  return sequence(Random.forSequence(seed, index), profile);
}

/**
 * Generate and run `sequences` sequences across a few slots, each a copy of one template world, then
 * shrink each failure that no class found so far explains to its shortest failing sub-sequence.
 */
export async function runCampaign(options: CampaignOptions): Promise<CampaignReport> {
  // The campaign's folder sits in a private one: a `cd` that climbs out of a slot lands there, not in the
  // shared temporary folder where another campaign (a second test run on the machine) would see it.
  const outer = mkdtempSync(join(tmpdir(), "bridle-attack-gen-"));
  const base = join(outer, "campaign");
  mkdirSync(base);
  const slots: Slot[] = [];
  try {
    const template = buildTemplate(join(base, "template"));
    const worlds = Array.from({ length: options.slots ?? 4 }, (_, i) => worldAt(join(base, `slot${i}`)));
    for (const world of worlds) copyWorld(template, world);
    slots.push(...worlds.map(openSlot));

    const bench: Bench = {
      judge: options.policy.judge,
      template,
      templateEntries: manifest(template.root),
      escapes: escapeWatch(
        base,
        ["template", ...worlds.map((world) => basename(world.root))],
        [outer, dirname(outer), "/"],
      ),
    };
    const stats = { judged: 0, ran: 0, completed: 0, resets: 0 };
    const wroteInside: CampaignReport["wroteInside"] = { count: 0, examples: [] };
    const failures: { index: number; steps: Step[]; outcome: SequenceOutcome }[] = [];
    const tries = options.tries ?? 5;
    let next = 0;
    const worker = async (slot: Slot) => {
      while (next < options.sequences) {
        const index = next++;
        const maker = new SequenceMaker(Random.forSequence(options.seed, index), options.policy.profile);
        const { steps, outcome, candidates } = await runGenerated(bench, slot, maker, tries);
        stats.judged += candidates;
        stats.ran += outcome.steps.filter((step) => step.ran).length;
        if (outcome.steps.length === steps.length && outcome.steps.every((step) => step.ran))
          stats.completed++;
        if (outcome.harms.length > 0) failures.push({ index, steps, outcome });
        if (outcome.inside.length > 0) {
          wroteInside.count++;
          if (wroteInside.examples.length < 8)
            wroteInside.examples.push({ index, steps, changes: outcome.inside });
        }
        if (outcome.ran) stats.resets++;
      }
    };
    await Promise.all(slots.map(worker));
    failures.sort((a, b) => a.index - b.index);

    // Shrinking runs alone in one slot: an escape above the slots is then the shrinking sequence's.
    const slot = slots[0] as Slot;
    const reproduces = async (steps: readonly Step[], kind: HarmKind) => {
      const outcome = await runSequence(bench, slot, steps);
      return outcome.harms.some((harm) => harm.kind === kind) ? outcome : undefined;
    };
    const classes: FailureClass[] = [];
    const unexplained: CampaignReport["unexplained"][number][] = [];
    const unreproduced: CampaignReport["unexplained"][number][] = [];
    let shrinks = 0;
    for (const failure of failures) {
      for (const kind of new Set(failure.outcome.harms.map((harm) => harm.kind))) {
        const known = classes.find((c) => c.kind === kind && explains(c.steps, failure.steps));
        if (known) {
          known.count++;
          continue;
        }
        if (shrinks >= (options.maxShrinks ?? 40)) {
          unexplained.push({ kind, index: failure.index, steps: failure.steps });
          continue;
        }
        shrinks++;
        // Run alone, it must fail again: a harm seen only beside other slots (an escape one of them made)
        // is listed, not shrunk into a class.
        const alone = await reproduces(failure.steps, kind);
        if (!alone) {
          unreproduced.push({ kind, index: failure.index, steps: failure.steps });
          continue;
        }
        const shrunk = await shrink(failure.steps, alone, kind, reproduces);
        const same = classes.find((c) => c.kind === kind && sameMoves(c.steps, shrunk.steps));
        if (same) {
          same.count++;
          continue;
        }
        const found: FailureClass = {
          kind,
          index: failure.index,
          steps: shrunk.steps,
          outcome: shrunk.outcome,
          original: failure.steps,
          shrunkFrom: failure.steps.length,
          count: 1,
        };
        classes.push(found);
        if (options.findingsFile)
          appendFinding(options.findingsFile, options.policy.name, options.seed, found, slot.world);
      }
    }
    return {
      seed: options.seed,
      policy: options.policy.name,
      profile: options.policy.profile,
      wroteInside,
      sequences: options.sequences,
      failing: failures.length,
      classes,
      unexplained,
      unreproduced,
      stats,
      legend: placeholders(slot.world)
        .map(([name, value]) => `${name} = ${value.replace(slot.world.root, "<slot>")}`)
        .join(", "),
    };
  } finally {
    for (const slot of slots) slot.launcher.close();
    rmSync(outer, { recursive: true, force: true });
  }
}

/** The moves of a class in order: a failure made of them (and maybe more) is counted under it unshrunk. */
function movesOf(steps: readonly Step[]): string[] {
  return steps.map((step) => step.parts.map((part) => part.move).join(" + "));
}

function sameMoves(a: readonly Step[], b: readonly Step[]): boolean {
  return movesOf(a).join(" | ") === movesOf(b).join(" | ");
}

/** Whether `shorter`'s steps appear in `longer`, in order, each as a step made of the same moves. */
function explains(shorter: readonly Step[], longer: readonly Step[]): boolean {
  const wanted = movesOf(shorter);
  let at = 0;
  for (const moves of movesOf(longer)) if (moves === wanted[at]) at++;
  return at === wanted.length;
}

/**
 * The shortest sub-sequence that still does harm of `kind`: drop a step, or a part of a compound step,
 * while the harm stays; stop when no single removal keeps it. Each try runs in a freshly reset slot.
 */
async function shrink(
  steps: readonly Step[],
  outcome: SequenceOutcome,
  kind: HarmKind,
  reproduces: (steps: readonly Step[], kind: HarmKind) => Promise<SequenceOutcome | undefined>,
): Promise<{ steps: readonly Step[]; outcome: SequenceOutcome }> {
  // Steps after the one that was refused never ran: they are not part of the failure.
  let best = { steps: steps.slice(0, outcome.steps.length), outcome };
  for (;;) {
    let smaller: typeof best | undefined;
    for (const candidate of candidates(best.steps)) {
      const again = await reproduces(candidate, kind);
      if (again) {
        smaller = { steps: candidate.slice(0, again.steps.length), outcome: again };
        break;
      }
    }
    if (!smaller) return best;
    best = smaller;
  }
}

function* candidates(steps: readonly Step[]): Generator<Step[]> {
  for (let i = 0; i < steps.length; i++) yield [...steps.slice(0, i), ...steps.slice(i + 1)];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as Step;
    if (step.parts.length > 1)
      for (let j = 0; j < step.parts.length; j++)
        yield [
          ...steps.slice(0, i),
          { ...step, parts: step.parts.filter((_, k) => k !== j) },
          ...steps.slice(i + 1),
        ];
    if (step.cwd !== undefined) {
      const { cwd: _, ...rest } = step;
      yield [...steps.slice(0, i), rest, ...steps.slice(i + 1)];
    }
  }
}

/** A class as the report prints it: the kind, the seed and index, each step with its verdict and harm. */
export function formatClass(found: FailureClass, seed: number): string {
  const lines = [
    `${found.kind}: seed ${seed}, sequence #${found.index} (${found.shrunkFrom} steps, shrunk to ${found.steps.length}; ${found.count} generated sequence${found.count === 1 ? "" : "s"} of this class)`,
  ];
  found.steps.forEach((step, i) => {
    const outcome = found.outcome.steps[i];
    const verdict = outcome ? outcome.decision : "not reached";
    const printed = outcome?.harms.map((harm) => harm.kind).join(", ");
    lines.push(`  ${i + 1}. ${describeStep(step)}`);
    lines.push(
      `       ${verdict}${outcome?.ran ? `, exit ${outcome.exit}` : ""}${printed ? `; ${printed}` : ""}`,
    );
  });
  const onDisk = found.outcome.harms.filter((harm) => !harm.kind.startsWith("printed"));
  for (const harm of dedupe(onDisk).slice(0, 4)) lines.push(`  → ${harm.detail}`);
  if (found.original.length > found.steps.length)
    lines.push(`  generated as: ${found.original.map(describeStep).join("  ⏎  ")}`);
  return lines.join("\n");
}

function dedupe(harms: readonly Harm[]): Harm[] {
  const seen = new Set<string>();
  return harms.filter((harm) => !seen.has(harm.detail) && seen.add(harm.detail));
}

export function formatReport(report: CampaignReport): string {
  const { stats } = report;
  const lines = [
    `compositional attacks on ${report.policy}: seed ${report.seed}, ${report.sequences} sequences, ${report.failing} did harm; ` +
      `${stats.judged} candidate steps judged, ${stats.ran} allowed and run, ${stats.completed} sequences allowed to the end`,
    `paths: ${report.legend}`,
  ];
  for (const found of report.classes) lines.push("", formatClass(found, report.seed));
  // Where the policy allows writes inside, writing there is the point; where it does not, each is a finding.
  if (report.wroteInside.count > 0 && report.profile === "read-only") {
    lines.push(
      "",
      `${report.wroteInside.count} sequences wrote inside the workspace (no harm to a canary; a write all the same):`,
    );
    for (const example of report.wroteInside.examples)
      lines.push(
        `  #${example.index}: ${example.steps.map(describeStep).join("  ⏎  ")}  →  ${example.changes.slice(0, 3).join(", ")}`,
      );
  }
  if (report.unreproduced.length > 0) {
    lines.push("", `${report.unreproduced.length} failures did no harm when run again alone:`);
    for (const failure of report.unreproduced.slice(0, 20))
      lines.push(`  ${failure.kind}: #${failure.index}: ${failure.steps.map(describeStep).join("  ⏎  ")}`);
  }
  if (report.unexplained.length > 0) {
    lines.push("", `${report.unexplained.length} more failures past the shrink budget, unshrunk:`);
    for (const failure of report.unexplained.slice(0, 20))
      lines.push(`  ${failure.kind}: #${failure.index}: ${failure.steps.map(describeStep).join("  ⏎  ")}`);
  }
  return lines.join("\n");
}

function appendFinding(file: string, policy: string, seed: number, found: FailureClass, slot: World): void {
  mkdirSync(dirname(file), { recursive: true });
  const legend = placeholders(slot)
    .map(([name, value]) => `${name}=${value.replace(slot.root, "<slot>")}`)
    .join(" ");
  appendFileSync(
    file,
    `\n### ${found.kind} (attack generator, ${policy}, ${new Date().toISOString()})\n\n\`\`\`\n${formatClass(found, seed)}\n\`\`\`\n(${legend}; <slot>/ws is the workspace)\n`,
  );
}
