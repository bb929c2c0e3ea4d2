import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { assertSessionId } from "@bridle/core";
import { isErrno, writeFileAtomic } from "@bridle/core/node";
import { z } from "zod";
import { BlobStore } from "./blobs.js";
import { type FileState, sameState, sharedScanner, type WorkspaceScanner } from "./entries.js";
import { placeProblem, restoreFiles } from "./restore.js";

/** One turn as a checkpoint recorded it: what its files were before and after, and what it found changed. */
export interface RewindTurn {
  /** Numbered as the session's prompts are, from 1. */
  readonly turn: number;
  /** The session's last sequence number before the turn began: a fork there is the conversation before it. */
  readonly forkSeq: number;
  /** The prompt's first line, for listings. */
  readonly prompt: string;
  /** Files the turn changed (any tool, a shell command's too), as they were before it and after it. */
  readonly changes: Readonly<Record<string, { readonly before: FileState; readonly after: FileState }>>;
  /** Files an earlier turn changed that were changed again, by someone else, before this one began. */
  readonly changedBetween: readonly string[];
  /** False while the turn runs, and for ever when its process ended first: its files cannot be rewound. */
  readonly finished: boolean;
  /** The workspace had more files than a scan lists: changes past the limit were not seen. */
  readonly truncated?: boolean;
}

/** A file a rewind would put back, and what it would put there. */
export interface RewindRestore {
  readonly path: string;
  readonly state: FileState;
}

/** A file a rewind will not touch, and why: the rewind then changes nothing at all. */
export interface RewindConflict {
  readonly path: string;
  readonly reason: string;
}

export interface RewindPlan {
  readonly to: number;
  readonly forkSeq: number;
  readonly restore: readonly RewindRestore[];
  readonly conflicts: readonly RewindConflict[];
}

export type RewindErrorCode = "no_such_turn" | "turn_in_progress" | "unreadable";

export class RewindError extends Error {
  override readonly name = "RewindError";
  readonly code: RewindErrorCode;
  constructor(code: RewindErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export interface CheckpointsOptions {
  /** The workspace's own data folder (the recipe's `workspaceDataDir`); checkpoints go in its `rewind/`. */
  readonly dataDir: string;
  /** The workspace folder whose files are checkpointed. */
  readonly root: string;
  readonly sessionId: string;
}

interface RecordFile {
  readonly version: 1;
  readonly turns: RewindTurn[];
}

/**
 * A session's file checkpoints. `begin` before each turn lists the workspace and keeps every content not
 * yet kept (so the first turn keeps the user's files as they were, uncommitted ones included), `end` after
 * it records what changed. `plan` and `rewind` put the files back as they were when a turn began, never
 * over a change someone else made since, never through a link or out of the workspace.
 */
export class Checkpoints {
  readonly sessionId: string;
  readonly root: string;
  readonly #dataDir: string;
  readonly #blobs: BlobStore;
  readonly #scanner: WorkspaceScanner;
  readonly #turns: RewindTurn[];
  #before: Map<string, FileState> | undefined;

  private constructor(options: CheckpointsOptions, blobs: BlobStore, turns: RewindTurn[]) {
    this.sessionId = options.sessionId;
    this.root = options.root;
    this.#dataDir = options.dataDir;
    this.#blobs = blobs;
    this.#scanner = sharedScanner(options.root);
    this.#turns = turns;
  }

  static async open(options: CheckpointsOptions): Promise<Checkpoints> {
    assertSessionId(options.sessionId);
    const blobs = await BlobStore.open(join(options.dataDir, "rewind", "blobs"));
    return new Checkpoints(options, blobs, await readRecord(recordPath(options.dataDir, options.sessionId)));
  }

  turns(): readonly RewindTurn[] {
    return this.#turns;
  }

  /** Call before a turn runs: scans the workspace and keeps what it holds now. */
  async begin(turn: {
    readonly turn?: number;
    readonly forkSeq: number;
    readonly prompt: string;
  }): Promise<void> {
    const scan = await this.#scanner.scan();
    for (const [path, entry] of scan.files) {
      // Most contents are kept already: asking the store only for new ones saves a promise per file.
      if (entry.kind === "file" && !this.#blobs.has(entry.sha256)) {
        await this.#blobs.keep(entry.sha256, join(this.root, path));
      }
    }
    const before = new Map<string, FileState>(scan.files);
    const changedBetween: string[] = [];
    for (const [path, after] of this.#lastAfter()) {
      if (!sameState(after, before.get(path) ?? null)) changedBetween.push(path);
    }
    this.#before = before;
    this.#turns.push({
      turn: turn.turn ?? (this.#turns.at(-1)?.turn ?? 0) + 1,
      forkSeq: turn.forkSeq,
      prompt: turn.prompt.split("\n", 1)[0]?.slice(0, 200) ?? "",
      changes: {},
      changedBetween,
      finished: false,
      ...(scan.truncated ? { truncated: true } : {}),
    });
    await this.#save();
  }

  /** Call after the turn, however it ended: records the files it changed. */
  async end(): Promise<RewindTurn | undefined> {
    const before = this.#before;
    const open = this.#turns.at(-1);
    if (before === undefined || open === undefined || open.finished) return undefined;
    this.#before = undefined;
    const scan = await this.#scanner.scan();
    const changes: Record<string, { before: FileState; after: FileState }> = {};
    for (const path of new Set([...before.keys(), ...scan.files.keys()])) {
      const was = before.get(path) ?? null;
      const now = scan.files.get(path) ?? null;
      if (!sameState(was, now)) changes[path] = { before: was, after: now };
    }
    const done: RewindTurn = {
      ...open,
      changes,
      finished: true,
      ...(scan.truncated || open.truncated ? { truncated: true } : {}),
    };
    this.#turns[this.#turns.length - 1] = done;
    await this.#save();
    return done;
  }

  /** What rewinding to the start of turn `to` would restore, and what stops it. Changes nothing. */
  async plan(to: number): Promise<RewindPlan> {
    const index = this.#turns.findIndex((turn) => turn.turn === to);
    const target = this.#turns[index];
    if (target === undefined) {
      const known = this.#turns.map((turn) => turn.turn);
      throw new RewindError(
        "no_such_turn",
        known.length === 0
          ? "this session has no checkpoints to rewind to"
          : `no checkpoint for turn ${to}: turns ${known[0]} to ${known.at(-1)} have one`,
      );
    }
    const later = this.#turns.slice(index);
    if (this.#before !== undefined)
      throw new RewindError("turn_in_progress", "a turn is running: rewind after it");
    const conflicts: RewindConflict[] = [];
    const restore = new Map<string, FileState>();
    const expected = new Map<string, FileState>();
    for (const turn of later) {
      if (!turn.finished) {
        conflicts.push({
          path: "*",
          reason: `turn ${turn.turn} was not fully recorded (its process ended first)`,
        });
      }
      for (const path of turn.changedBetween) {
        if (turn !== target && touchedFrom(later, path)) {
          conflicts.push({ path, reason: `changed by someone else before turn ${turn.turn}` });
        }
      }
      for (const [path, change] of Object.entries(turn.changes)) {
        if (!restore.has(path)) restore.set(path, change.before);
        expected.set(path, change.after);
      }
    }
    const items: RewindRestore[] = [];
    for (const [path, state] of [...restore].sort(([a], [b]) => a.localeCompare(b))) {
      const problem = await placeProblem(this.root, path);
      if (problem) {
        conflicts.push({ path, reason: problem });
        continue;
      }
      const now = await this.#scanner.entry(path);
      if (!sameState(now, expected.get(path) ?? null)) {
        conflicts.push({ path, reason: "changed since the agent's last change to it" });
        continue;
      }
      if (sameState(now, state)) continue;
      if (state?.kind === "file" && !this.#blobs.has(state.sha256)) {
        conflicts.push({
          path,
          reason: "its content was not kept (too large, or the checkpoint store was full)",
        });
        continue;
      }
      items.push({ path, state });
    }
    return { to, forkSeq: target.forkSeq, restore: items, conflicts: dedupe(conflicts) };
  }

  /**
   * Puts the files back as they were when turn `to` began, when nothing stops it; the plan says what was
   * restored or, with conflicts, why nothing was.
   */
  async rewind(to: number): Promise<RewindPlan> {
    const plan = await this.plan(to);
    if (plan.conflicts.length === 0) await restoreFiles(this.root, this.#blobs, plan.restore);
    return plan;
  }

  /** The checkpoints of `sessionId`, a fork of this session at turn `to`'s start: the turns before it. */
  async continueAs(sessionId: string, to: number): Promise<Checkpoints> {
    assertSessionId(sessionId);
    const turns = this.#turns.filter((turn) => turn.turn < to);
    const next = new Checkpoints(
      { dataDir: this.#dataDir, root: this.root, sessionId },
      this.#blobs,
      turns.map((turn) => ({ ...turn })),
    );
    await next.#save();
    return next;
  }

  /** Each path's state after the last turn that changed it. */
  #lastAfter(): Map<string, FileState> {
    const after = new Map<string, FileState>();
    for (const turn of this.#turns) {
      for (const [path, change] of Object.entries(turn.changes)) after.set(path, change.after);
    }
    return after;
  }

  async #save(): Promise<void> {
    const path = recordPath(this.#dataDir, this.sessionId);
    await mkdir(join(this.#dataDir, "rewind", "sessions"), { recursive: true, mode: 0o700 });
    const record: RecordFile = { version: 1, turns: this.#turns };
    await writeFileAtomic(path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }
}

const STATE = z.union([
  z.null(),
  z.object({ kind: z.literal("file"), sha256: z.string(), size: z.number(), executable: z.boolean() }),
  z.object({ kind: z.literal("link"), target: z.string() }),
]);
const RECORD = z.object({
  version: z.literal(1),
  turns: z.array(
    z.object({
      turn: z.number().int(),
      forkSeq: z.number().int(),
      prompt: z.string(),
      changes: z.record(z.string(), z.object({ before: STATE, after: STATE })),
      changedBetween: z.array(z.string()),
      finished: z.boolean(),
      truncated: z.boolean().optional(),
    }),
  ),
});

function touchedFrom(turns: readonly RewindTurn[], path: string): boolean {
  return turns.some((turn) => path in turn.changes);
}

function dedupe(conflicts: readonly RewindConflict[]): RewindConflict[] {
  const seen = new Set<string>();
  return conflicts.filter((conflict) => {
    const key = `${conflict.path}\0${conflict.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function recordPath(dataDir: string, sessionId: string): string {
  return join(dataDir, "rewind", "sessions", `${sessionId}.json`);
}

async function readRecord(path: string): Promise<RewindTurn[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT")) return [];
    throw error;
  }
  const parsed = RECORD.safeParse(JSON.parse(text));
  if (!parsed.success) throw new RewindError("unreadable", `${path}: not a checkpoint record`);
  return parsed.data.turns.map((turn) => ({ ...turn }));
}
