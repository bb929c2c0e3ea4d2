/** A line the model was shown, remembered under its tag so a stale tag can be traced to where it went. */
export interface ShownLine {
  readonly line: number;
  readonly text: string;
}

const MAX_RUNS = 64;
const MAX_FILES_PER_RUN = 1_000;
// Past this many remembered tags for one file, the oldest are forgotten; they would then read as unknown.
const MAX_SHOWN_TAGS = 400_000;

/**
 * Which tags each run has been shown, file by file. Whether a file may be edited at all (read in this run,
 * unchanged since) is the FileTracker's business; this only lets edit_file find a tag's line without
 * hashing the whole file, and tell a stale tag (shown once, no longer matching) from an invented one.
 * Keyed by run id and bounded, like the tracker.
 */
export class ReadState {
  readonly #runs = new Map<string, Map<string, Map<string, ShownLine>>>();

  shown(runId: string, realPath: string): ReadonlyMap<string, ShownLine> | undefined {
    return this.#runs.get(runId)?.get(realPath);
  }

  /** Note that the run was shown these lines of `realPath`, under these tags. */
  saw(runId: string, realPath: string, lines: Iterable<readonly [string, ShownLine]>): void {
    let files = this.#runs.get(runId);
    if (files) this.#runs.delete(runId);
    else files = new Map();
    this.#runs.set(runId, files);
    if (this.#runs.size > MAX_RUNS) this.#runs.delete(this.#runs.keys().next().value as string);

    let tags = files.get(realPath);
    if (tags) files.delete(realPath);
    else tags = new Map();
    files.set(realPath, tags);
    if (files.size > MAX_FILES_PER_RUN) files.delete(files.keys().next().value as string);

    // set() alone: re-reading a file updates its tags in place (delete-then-set would churn the table).
    for (const [tag, line] of lines) tags.set(tag, line);
    if (tags.size > MAX_SHOWN_TAGS) {
      let excess = tags.size - MAX_SHOWN_TAGS;
      for (const tag of tags.keys()) {
        if (excess-- <= 0) break;
        tags.delete(tag);
      }
    }
  }
}
