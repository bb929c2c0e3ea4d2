// Edit tasks generated from the corpus: real source files copied from packages in node_modules (their
// licence and provenance kept beside them in edit-corpus/), each with one planted bug of a known kind.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyMutation, candidates, MUTATION_KINDS, type Mutation, type MutationKind } from "./mutations.js";
import { Random } from "./random.js";

/** Where a corpus file came from. */
export interface CorpusSource {
  readonly package: string;
  readonly version: string;
  /** Path of the file inside the package. */
  readonly path: string;
  readonly license: string;
}

export interface CorpusFile extends CorpusSource {
  readonly text: string;
}

export interface EditTask {
  readonly id: string;
  readonly source: CorpusSource;
  /** Path of the file in the task's workspace. */
  readonly path: string;
  readonly original: string;
  readonly broken: string;
  readonly mutation: Mutation;
  readonly prompt: string;
}

export interface TaskOptions {
  readonly seed: number;
  /** Tasks per mutation kind per corpus file (default 1; fewer when the file has fewer places). */
  readonly perKind?: number;
  readonly kinds?: readonly MutationKind[];
}

/** The corpus shipped with the package (apps/eval/edit-corpus). */
export function defaultCorpusDir(): string {
  // src/edit-format/ in the sources, dist/ once built: the corpus sits at the package root either way.
  const here = fileURLToPath(new URL(".", import.meta.url));
  const up = here.includes(`${join("src", "edit-format")}`) ? "../.." : "..";
  return join(here, up, "edit-corpus");
}

/** Reads every `<package>@<version>/source.json` and the file it names. */
export function loadCorpus(dir: string = defaultCorpusDir()): CorpusFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const meta = JSON.parse(readFileSync(join(dir, name, "source.json"), "utf8")) as CorpusSource & {
        readonly file: string;
      };
      return {
        package: meta.package,
        version: meta.version,
        path: meta.path,
        license: meta.license,
        text: readFileSync(join(dir, name, meta.file), "utf8"),
      };
    });
}

/** The tasks for a seed: the same seed and corpus give the same tasks, in the same order. */
export function generateTasks(corpus: readonly CorpusFile[], options: TaskOptions): EditTask[] {
  const random = new Random(options.seed);
  const tasks: EditTask[] = [];
  for (const file of corpus) {
    const lines = file.text.split("\n");
    for (const kind of options.kinds ?? MUTATION_KINDS) {
      const places = random.sample(candidates(kind, lines), options.perKind ?? 1);
      for (const mutation of places) {
        const path = `src/${file.path.split("/").at(-1)}`;
        tasks.push({
          id: `${file.package}-${kind}-${mutation.line + 1}`,
          source: { package: file.package, version: file.version, path: file.path, license: file.license },
          path,
          original: file.text,
          broken: applyMutation(lines, mutation).join("\n"),
          mutation,
          prompt: `There is a bug in ${path}. ${mutation.fix} Fix it with the edit tool; change nothing else.`,
        });
      }
    }
  }
  return tasks;
}

/** The task's check: the file is the original again, byte for byte. */
export function checkFixed(task: EditTask, text: string): boolean {
  return text === task.original;
}
