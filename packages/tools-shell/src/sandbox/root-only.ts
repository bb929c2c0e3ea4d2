import { lstatSync, readdirSync, type Stats } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { builtEntry } from "../built-entry.js";

/**
 * Files and folders under `trees` that only their owner (or group) may read, plus any Unix socket: for a
 * sandbox that runs as root, these are the root-only files its own uid would still open (owning a file
 * needs no capability), so they are masked. Symbolic links are not followed.
 */
export function unreadableByOthers(trees: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(folder, name);
      let stat: Stats;
      try {
        stat = lstatSync(path);
      } catch {
        continue;
      }
      if (stat.isSymbolicLink()) continue;
      const othersRead = (stat.mode & 0o004) !== 0;
      if (stat.isDirectory()) {
        if (!othersRead || (stat.mode & 0o001) === 0) found.push(path);
        else walk(path);
      } else if (stat.isSocket() || (stat.isFile() && !othersRead)) found.push(path);
    }
  };
  for (const tree of trees) {
    let root: Stats | undefined;
    try {
      root = lstatSync(tree);
    } catch {
      // a tree this system does not have
    }
    if (root?.isDirectory()) walk(tree);
  }
  return found;
}

/**
 * `unreadableByOthers` of some trees, listed in the background: a large /usr is a second of lstat calls,
 * which would otherwise hold up whatever this process does first (the first model request). The walk
 * runs on a worker thread (the built entry `root-only-walk.js`; from unbuilt sources, on this thread
 * after the current turn of the event loop). The worker does not keep the process alive until someone
 * waits for its answer.
 */
export class RootOnlyListing {
  readonly #result: Promise<string[]>;
  readonly #worker: Worker | undefined;

  private constructor(result: Promise<string[]>, worker?: Worker) {
    this.#result = result;
    this.#worker = worker;
    // Nobody may ever wait (a run without commands): a failure is then nobody's to report.
    result.catch(() => {});
  }

  static start(trees: readonly string[]): RootOnlyListing {
    const entry = builtEntry("root-only-walk.js");
    if (entry === undefined) {
      const result = new Promise<string[]>((resolve, reject) => {
        setImmediate(() => {
          try {
            resolve(unreadableByOthers(trees));
          } catch (error) {
            reject(error);
          }
        });
      });
      return new RootOnlyListing(result);
    }
    // None of this process's node flags: an --eval program's --input-type, say, stops a file's worker.
    const worker = new Worker(entry, { workerData: [...trees], execArgv: [] });
    worker.unref();
    const result = new Promise<string[]>((resolve, reject) => {
      worker.once("message", (found: string[]) => resolve(found));
      worker.once("error", reject);
      // After "message", this settles nothing; without one, the walk died without an answer.
      worker.once("exit", (code) => reject(new Error(`the walk's worker exited with code ${code}`)));
    });
    return new RootOnlyListing(result, worker);
  }

  /** The list; until it is ready, the worker keeps this process alive. */
  wait(): Promise<string[]> {
    this.#worker?.ref();
    return this.#result;
  }
}
