import { ToolFailure } from "@bridle/core";
import { type FileSnapshot, sameContent } from "./snapshot.js";

export interface FileTrackerOptions {
  /** Runs remembered at once; the least recently active is forgotten first. Default 64. */
  readonly maxRuns?: number;
  /** Files remembered per run; the least recently touched is forgotten first. Default 5,000. */
  readonly maxFilesPerRun?: number;
}

/**
 * The read-before-write rule's memory: for each run, what each file looked like when the run last read
 * or wrote it. Tools are reused across runs of a harness, so everything is keyed by run id; state is
 * bounded (old runs and files are dropped, which only means the model must read such a file again).
 */
export class FileTracker {
  readonly #runs = new Map<string, Map<string, FileSnapshot>>();
  readonly #maxRuns: number;
  readonly #maxFiles: number;

  constructor(options: FileTrackerOptions = {}) {
    this.#maxRuns = options.maxRuns ?? 64;
    this.#maxFiles = options.maxFilesPerRun ?? 5_000;
  }

  /** Remember what the run now knows of the file (after a read, or after its own write). */
  remember(runId: string, path: string, snapshot: FileSnapshot): void {
    const files = this.#files(runId, true);
    files.delete(path);
    files.set(path, snapshot);
    if (files.size > this.#maxFiles) files.delete(files.keys().next().value as string);
  }

  /** What the run last saw of the file, if anything. */
  lastSeen(runId: string, path: string): FileSnapshot | undefined {
    return this.#files(runId, false)?.get(path);
  }

  /**
   * Throws Conflict unless overwriting is safe: the file does not exist (`current` undefined), or this
   * run has seen it and it has not changed since. `shown` is the path as the model wrote it.
   */
  assertUnchanged(runId: string, path: string, current: FileSnapshot | undefined, shown: string): void {
    if (current === undefined) return;
    const seen = this.lastSeen(runId, path);
    if (seen === undefined) {
      throw new ToolFailure(
        "Conflict",
        `${shown} already exists and has not been read in this run. Read it with read_file first, then retry.`,
      );
    }
    if (!sameContent(seen, current)) {
      throw new ToolFailure(
        "Conflict",
        `${shown} changed on disk since this run last read it (now ${current.size} bytes, was ${seen.size}). Read it again with read_file, then retry against the current content.`,
      );
    }
  }

  forgetRun(runId: string): void {
    this.#runs.delete(runId);
  }

  #files(runId: string, create: true): Map<string, FileSnapshot>;
  #files(runId: string, create: false): Map<string, FileSnapshot> | undefined;
  #files(runId: string, create: boolean): Map<string, FileSnapshot> | undefined {
    let files = this.#runs.get(runId);
    if (files) {
      this.#runs.delete(runId);
      this.#runs.set(runId, files);
      return files;
    }
    if (!create) return undefined;
    files = new Map();
    this.#runs.set(runId, files);
    if (this.#runs.size > this.#maxRuns) this.#runs.delete(this.#runs.keys().next().value as string);
    return files;
  }
}
