import { type Category, move } from "./moves.js";
import { Ctx, Made } from "./names.js";
import type { Random } from "./random.js";

/**
 * The vocabulary: moves an agent could make one at a time, each harmless-looking alone, that build on
 * what earlier moves made (links, folders, scripts, list files, repositories) and then read, run or
 * write through it. `{WS}`, `{OUT}`, `{HOME}` and `{CFG}` are filled with the slot's paths (the
 * workspace, the folder beside it, HOME, the user's Bridle config folder).
 */

/** One piece of a command line, named by the move that wrote it (the name groups failures into classes). */
export interface Part {
  readonly move: string;
  readonly text: string;
}

/** One bash tool call: its parts joined into a line, run from `cwd` (the tool's argument) when given. */
export interface Step {
  readonly parts: readonly Part[];
  readonly join: " && " | "; ";
  readonly cwd?: string;
}

export function commandOf(step: Step): string {
  return step.parts.map((part) => part.text).join(step.join);
}

export function describeStep(step: Step): string {
  return `${commandOf(step)}${step.cwd === undefined ? "" : `   [cwd: ${step.cwd}]`}`;
}

/** The next step: mostly makers early in the sequence, mostly readers, runners and writers late. */
/**
 * What the policy lets through decides what is worth proposing: where it allows writes inside the
 * workspace, makers come first and the rest builds on them; where it allows only what it proves read-only,
 * makers mostly ask, so readers and runners work on what the hostile template planted, with makers and
 * writers still tried (a write judged read-only is the finding).
 */
export type Profile = "workspace-write" | "read-only";

function stepAt(c: Ctx, position: number, length: number, profile: Profile): Step {
  const late = position / Math.max(1, length - 1);
  const pick = (): Category =>
    c.rng.weighted<Category>(
      profile === "workspace-write"
        ? [
            ["maker", 5 - 3 * late],
            ["reader", 1 + 2 * late],
            ["runner", 1 + 1.5 * late],
            ["writer", 1 + 1.5 * late],
          ]
        : [
            ["maker", 1],
            ["reader", 5],
            ["runner", 2],
            ["writer", 1],
          ],
    );
  const parts: Part[] = [];
  const shape = c.rng.weighted<"one" | "cd" | "two" | "prefix">([
    ["one", 6],
    ["cd", 1.5],
    ["two", 2],
    ["prefix", 1],
  ]);
  if (shape === "cd") {
    const place = c.rng.pick([
      c.name("dir", "link"),
      `${c.name("link", "dir")}/..`,
      `${c.name("link")}/../..`,
      `-P ${c.name("link")}`,
      `${c.name("dir")}/../${c.name("link")}`,
    ]);
    parts.push({ move: "cd", text: `${c.rng.pick(["cd", "pushd"])} ${place}` });
  }
  // A write after a `cd` (or env -C) names its target relative to where the cd lands, which may be above
  // the campaign's folder if the policy misjudged it: only "write after cd" (ESCAPE_MARK) writes there.
  const safe = (category: Category): Category =>
    category === "writer" && parts.length > 0 ? "reader" : category;
  const first = move(c, safe(pick()));
  if (shape === "prefix") {
    // Options and assignments that change what the next program sees: its folder, HOME, PATH, git's repository.
    const prefix = c.rng.pick([
      `env -C ${c.name("dir", "link")}`,
      `env HOME=${c.name("dir", "link")}`,
      `HOME=${c.name("dir", "link")}`,
      `XDG_CONFIG_HOME=${c.name("dir")}`,
      `GIT_DIR=${c.name("repo", "dir")}`,
      `env PATH=${c.name("dir")}:/usr/bin:/bin`,
      "nice",
      "timeout 9",
    ]);
    parts.push({
      move: `${prefix.split(/[ =]/)[0]}-prefixed ${first.move}`,
      text: `${prefix} ${first.text}`,
    });
  } else parts.push(first);
  if (shape === "two") {
    const second = pick();
    const afterCd = parts.some((part) => /(^|[;&|(]\s*)(cd|pushd)\s|env -C/.test(part.text));
    parts.push(move(c, second === "writer" && afterCd ? "reader" : second));
  }
  const cwd = c.rng.chance(0.06) ? c.name("dir", "link") : undefined;
  return { parts, join: c.rng.chance(0.8) ? " && " : "; ", ...(cwd === undefined ? {} : { cwd }) };
}

/**
 * Makes one sequence step by step. A candidate step names what accepted steps made; once the policy
 * allows it where it stands, `accept` records what it makes, so a rejected candidate leaves no trace.
 */
export class SequenceMaker {
  readonly length: number;
  readonly #rng: Random;
  readonly #profile: Profile;
  #made = new Made();

  constructor(rng: Random, profile: Profile) {
    this.#rng = rng;
    this.#profile = profile;
    this.length = rng.int(2, 5);
  }

  candidate(position: number): { readonly step: Step; accept(): void } {
    const made = this.#made.copy();
    const step = stepAt(new Ctx(this.#rng, made), position, this.length, this.#profile);
    return {
      step,
      accept: () => {
        this.#made = made;
      },
    };
  }
}

/** A sequence as generated when every candidate is taken: what the generator proposes, unfiltered. */
export function sequence(rng: Random, profile: Profile): Step[] {
  const maker = new SequenceMaker(rng, profile);
  return Array.from({ length: maker.length }, (_, position) => {
    const next = maker.candidate(position);
    next.accept();
    return next.step;
  });
}
