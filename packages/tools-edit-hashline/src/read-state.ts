import { hash } from "blake3-wasm";

/** A line the model was shown, remembered under its tag so a stale tag can be traced to where it went. */
export interface ShownLine {
  readonly line: number;
  readonly text: string;
}

/** What one run knows about one file: the content it last saw, and every tag it was shown. */
export interface FileView {
  digest: string;
  readonly shown: Map<string, ShownLine>;
}

const MAX_RUNS = 64;
// Past this many remembered tags for one file, older ones are forgotten; they would read as unknown.
const MAX_SHOWN_TAGS = 400_000;

/** The content digest that decides whether a file changed on disk since the model saw it. */
export function contentDigest(bytes: Buffer): string {
  return (hash(bytes) as Buffer).toString("hex");
}

/**
 * Per-run memory of what the model has read. Keyed by run id so two runs sharing one tool set never
 * vouch for each other's reads; the oldest runs are dropped beyond a bound so a long-lived process
 * does not grow without end.
 */
export class ReadState {
  readonly #runs = new Map<string, Map<string, FileView>>();

  get(runId: string, realPath: string): FileView | undefined {
    return this.#runs.get(runId)?.get(realPath);
  }

  /** Note that the model saw `realPath` with this content, and these lines with their tags. */
  saw(runId: string, realPath: string, digest: string, lines: Iterable<readonly [string, ShownLine]>): void {
    let files = this.#runs.get(runId);
    if (files) {
      this.#runs.delete(runId);
    } else {
      files = new Map();
    }
    this.#runs.set(runId, files);
    while (this.#runs.size > MAX_RUNS) {
      const oldest = this.#runs.keys().next().value as string;
      this.#runs.delete(oldest);
    }
    let view = files.get(realPath);
    if (!view) {
      view = { digest, shown: new Map() };
      files.set(realPath, view);
    }
    view.digest = digest;
    for (const [tag, shown] of lines) {
      view.shown.delete(tag);
      view.shown.set(tag, shown);
    }
    if (view.shown.size > MAX_SHOWN_TAGS) {
      const excess = view.shown.size - MAX_SHOWN_TAGS;
      let dropped = 0;
      for (const tag of view.shown.keys()) {
        if (dropped++ >= excess) break;
        view.shown.delete(tag);
      }
    }
  }
}
