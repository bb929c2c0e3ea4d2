// Rewind for the CLI: a checkpoint of the workspace's files around each turn (@bridle/coding's
// Checkpoints, kept in the workspace's data folder), and /undo, /rewind [N] and `bridle sessions rewind`,
// which put the files back and continue the conversation on a fork made where that turn began.

import { Checkpoints, RewindError, type RewindPlan, type RewindTurn } from "@bridle/coding";
import { userDataDir, workspaceDataDir } from "@bridle/coding-agent";
import { errorMessage, type Message, type SessionStore, sessionTranscript } from "@bridle/core";
import { CliError } from "../cli-error.js";
import { oneLine } from "../terminal/display-text.js";
import { holdToolsUntil } from "./tool-gate.js";

export interface RewindPlace {
  readonly cwd: string;
  readonly dataDir?: string | undefined;
}

/** Where a rewind left the conversation: a fork of the session made where the turn began. */
export interface Rewound {
  readonly id: string;
  readonly history: readonly Message[];
}

export async function openCheckpoints(place: RewindPlace, sessionId: string): Promise<Checkpoints> {
  const dataDir = await workspaceDataDir(place.dataDir ?? userDataDir(), place.cwd);
  return Checkpoints.open({ dataDir, root: place.cwd, sessionId });
}

/** The session's turns so far: the prompts it ran (a run resumed after an approval is the same turn). */
async function countTurns(store: SessionStore, sessionId: string): Promise<number> {
  let turns = 0;
  // A new session is stored at its first prompt: until then it has no turns.
  if ((await store.get(sessionId)) === undefined) return 0;
  for await (const { event } of store.read(sessionId)) {
    if (event.type === "run_started" && !event.resumed) turns++;
  }
  return turns;
}

/**
 * The lines that say what a plan did or why it did nothing. A refusal names every file that stopped it.
 */
export function describePlan(plan: RewindPlan, done: boolean): string {
  if (!done) {
    const lines = plan.conflicts.map((c) => `  ${oneLine(c.path, 300)}: ${oneLine(c.reason, 200)}`);
    return `rewind refused: nothing was changed. These files stop it:\n${lines.join("\n")}\n`;
  }
  const files = plan.restore.map((r) => `  ${oneLine(r.path, 300)}${r.state === null ? " (removed)" : ""}`);
  return `rewound to the start of turn ${plan.to}: ${plan.restore.length} file${plan.restore.length === 1 ? "" : "s"} restored${files.length ? `\n${files.join("\n")}` : ""}\n`;
}

export function describeTurns(turns: readonly RewindTurn[]): string {
  if (turns.length === 0) return "no checkpoints in this session yet\n";
  return turns
    .map((t) => {
      const files = Object.keys(t.changes).length;
      const note = t.finished ? `${files} file${files === 1 ? "" : "s"} changed` : "not fully recorded";
      return `  ${t.turn}  ${oneLine(t.prompt, 80)}  (${note}${t.truncated ? "; workspace too large to scan whole" : ""})\n`;
    })
    .join("");
}

/**
 * Rewinds `checkpoints`' session to the start of turn `to`: the files first, then the conversation as a
 * fork made where that turn began. Refused (nothing changed) when a file was changed by someone else.
 */
export async function rewindSession(
  checkpoints: Checkpoints,
  store: SessionStore,
  to: number,
): Promise<{ plan: RewindPlan; rewound?: Rewound; next?: Checkpoints }> {
  const plan = await checkpoints.rewind(to);
  if (plan.conflicts.length > 0) return { plan };
  const fork = await store.fork(checkpoints.sessionId, plan.forkSeq);
  const next = await checkpoints.continueAs(fork.id, to);
  return { plan, rewound: { id: fork.id, history: await sessionTranscript(store, fork.id) }, next };
}

/**
 * The interactive session's checkpoints: one before and after each turn, and the /undo and /rewind
 * commands. A checkpoint that fails is said once and the session carries on without rewind.
 */
export class TurnCheckpoints {
  #checkpoints: Checkpoints | undefined;
  #turns: number;
  /** The current turn's checkpoint, being taken (see `before`). */
  #begun: Promise<void> | undefined;
  readonly #place: RewindPlace;
  readonly #say: (text: string) => void;

  private constructor(
    place: RewindPlace,
    checkpoints: Checkpoints | undefined,
    turns: number,
    say: (text: string) => void,
  ) {
    this.#place = place;
    this.#checkpoints = checkpoints;
    this.#turns = turns;
    this.#say = say;
  }

  static async open(
    place: RewindPlace,
    store: SessionStore,
    sessionId: string,
    say: (text: string) => void,
  ): Promise<TurnCheckpoints> {
    const turns = await countTurns(store, sessionId);
    try {
      return new TurnCheckpoints(place, await openCheckpoints(place, sessionId), turns, say);
    } catch (error) {
      say(`rewind: off for this session (${oneLine(errorMessage(error), 200)})\n`);
      return new TurnCheckpoints(place, undefined, turns, say);
    }
  }

  /**
   * Before a turn: the files as they are now. `forkSeq` is the session's last sequence number. The listing
   * runs while the turn's first model request is in flight (nothing in it depends on the checkpoint): the
   * turn's first tool call waits for it (tool-gate.ts), and so do `after` and a rewind.
   */
  async before(prompt: string, forkSeq: number): Promise<void> {
    this.#turns++;
    const turn = this.#turns;
    const begun = this.#guard(() => this.#checkpoints?.begin({ turn, forkSeq, prompt }));
    this.#begun = begun;
    holdToolsUntil(this.#place.cwd, begun);
  }

  async after(): Promise<void> {
    await this.#begun;
    await this.#guard(() => this.#checkpoints?.end());
  }

  /** `/undo` (the last turn) or `/rewind [N]`; the new session when it rewound. */
  async command(command: string, arg: string | undefined, store: SessionStore): Promise<Rewound | undefined> {
    await this.#begun;
    const checkpoints = this.#checkpoints;
    if (checkpoints === undefined) {
      this.#say("rewind is off for this session\n");
      return undefined;
    }
    const turns = checkpoints.turns();
    if (command === "/rewind" && arg === undefined) {
      this.#say(
        `${describeTurns(turns)}/rewind N puts the files and the conversation back to the start of turn N\n`,
      );
      return undefined;
    }
    const to = command === "/undo" ? turns.at(-1)?.turn : Number(arg);
    if (to === undefined || !Number.isInteger(to)) {
      this.#say(
        to === undefined ? "nothing to undo\n" : "usage: /rewind [N] (a turn number; /rewind lists them)\n",
      );
      return undefined;
    }
    try {
      const { plan, rewound, next } = await rewindSession(checkpoints, store, to);
      this.#say(describePlan(plan, rewound !== undefined));
      if (!rewound || !next) return undefined;
      this.#checkpoints = next;
      this.#turns = to - 1;
      this.#say(`now on ${oneLine(rewound.id, 200)} (the conversation as it was before turn ${to})\n`);
      return rewound;
    } catch (error) {
      if (!(error instanceof RewindError)) throw error;
      this.#say(`rewind: ${oneLine(error.message, 300)}\n`);
      return undefined;
    }
  }

  /** Another session now (a /fork): its own checkpoints. */
  async switchTo(store: SessionStore, sessionId: string): Promise<TurnCheckpoints> {
    return TurnCheckpoints.open(this.#place, store, sessionId, this.#say);
  }

  async #guard(step: () => Promise<unknown> | undefined): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.#checkpoints = undefined;
      this.#say(`rewind: checkpoint failed, off for this session (${oneLine(errorMessage(error), 200)})\n`);
    }
  }
}

/**
 * `bridle sessions rewind ID [--to TURN]`: the turns with checkpoints, or the rewind and the fork that
 * continues from it. Exit 0 when rewound (or listed), 1 when refused, 2 on bad usage.
 */
export async function sessionsRewind(
  store: SessionStore,
  place: RewindPlace,
  id: string | undefined,
  to: string | undefined,
  out: (text: string) => void,
): Promise<number> {
  if (!id) throw new CliError("usage: bridle sessions rewind ID [--to TURN]", 2);
  if (!(await store.get(id))) throw new CliError(`no session "${oneLine(id, 200)}"`, 1);
  const checkpoints = await openCheckpoints(place, id);
  if (checkpoints.turns().length === 0) {
    throw new CliError(
      `session "${oneLine(id, 200)}" has no checkpoints for ${oneLine(place.cwd, 300)}: run this in its workspace (or pass --cwd)`,
      1,
    );
  }
  if (to === undefined) {
    out(describeTurns(checkpoints.turns()));
    return 0;
  }
  const turn = Number(to);
  if (!Number.isInteger(turn) || turn < 1)
    throw new CliError(`--to ${oneLine(to, 40)}: not a turn number`, 2);
  try {
    const { plan, rewound } = await rewindSession(checkpoints, store, turn);
    if (!rewound) {
      process.stderr.write(describePlan(plan, false));
      return 1;
    }
    out(describePlan(plan, true));
    out(`continue with: bridle --resume ${oneLine(rewound.id, 200)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof RewindError)
      throw new CliError(error.message, error.code === "no_such_turn" ? 2 : 1);
    throw error;
  }
}
