// The public Explicit Edit Benchmark's tasks (github.com/alexshpunt/explicit-edit-benchmark, MIT), read from
// a local checkout. The benchmark generates its tasks in code: `explicitEditTasks()` of
// src/suites/explicit-edit/fixtures.ts returns, per task, its id, the prompt, the input tree and the
// expected tree (path → text or bytes), plus category, scale, language, variant and the fixture's hash.
// Nothing here is copied from it; a task list may also come as JSON (the same fields) for a checkout
// whose TypeScript Node cannot load directly.
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { BridleEvalError } from "../errors.js";

/** Where the generator sits in a checkout. */
export const FIXTURES_MODULE = "src/suites/explicit-edit/fixtures.ts";

const Bytes = z.union([z.string(), z.instanceof(Uint8Array)]);
/** A JSON task list carries bytes that are not UTF-8 text as `{ base64 }`. */
const JsonBytes = z.union([z.string(), z.object({ base64: z.string() }).strict()]);

const TaskFields = {
  id: z.string().min(1),
  prompt: z.string().min(1),
  category: z.string().optional(),
  scale: z.union([z.string(), z.number()]).optional(),
  language: z.string().optional(),
  variant: z.string().optional(),
  fixtureSha256: z.string().optional(),
};
const ModuleTask = z.object({
  ...TaskFields,
  input: z.record(z.string(), Bytes),
  expected: z.record(z.string(), Bytes),
});
const JsonTask = z.object({
  ...TaskFields,
  input: z.record(z.string(), JsonBytes),
  expected: z.record(z.string(), JsonBytes),
});

export interface ExplicitEditTask {
  readonly id: string;
  readonly prompt: string;
  readonly category: string | undefined;
  /** The files the agent starts from, path → bytes. */
  readonly input: ReadonlyMap<string, Buffer>;
  /** The tree the verifier wants, byte for byte: no file missing, none extra. */
  readonly expected: ReadonlyMap<string, Buffer>;
}

const toBuffer = (value: string | Uint8Array | { base64: string }): Buffer =>
  typeof value === "string"
    ? Buffer.from(value, "utf8")
    : value instanceof Uint8Array
      ? Buffer.from(value)
      : Buffer.from(value.base64, "base64");

const tree = (files: Record<string, string | Uint8Array | { base64: string }>) =>
  new Map(Object.entries(files).map(([path, value]) => [path, toBuffer(value)]));

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
}

/**
 * The tasks of a checkout (its fixtures module, loaded with Node's own TypeScript support) or of a JSON
 * task list. Throws a BridleEvalError naming the file and what is wrong.
 */
export async function loadExplicitEditTasks(source: string): Promise<ExplicitEditTask[]> {
  const abs = resolve(source);
  const info = await stat(abs).catch(() => undefined);
  if (!info) throw new BridleEvalError("NotFound", `${source}: no such file or folder`);
  let raw: unknown;
  let schema: typeof ModuleTask | typeof JsonTask;
  if (info.isDirectory()) {
    const module = join(abs, FIXTURES_MODULE);
    if (!(await stat(module).catch(() => undefined))) {
      throw new BridleEvalError(
        "NotFound",
        `${source}: no ${FIXTURES_MODULE} (is it a checkout of alexshpunt/explicit-edit-benchmark?)`,
      );
    }
    try {
      const loaded = (await import(pathToFileURL(module).href)) as { explicitEditTasks?: unknown };
      if (typeof loaded.explicitEditTasks !== "function") {
        throw new Error("it exports no explicitEditTasks()");
      }
      raw = await (loaded.explicitEditTasks as () => unknown)();
    } catch (error) {
      throw new BridleEvalError(
        "InvalidTask",
        `${module}: ${(error as Error).message}. Dump the tasks as JSON inside the checkout (see the README) and pass that file instead.`,
      );
    }
    schema = ModuleTask;
  } else {
    try {
      raw = JSON.parse(await readFile(abs, "utf8"));
    } catch (error) {
      throw new BridleEvalError("InvalidTask", `${source}: ${(error as Error).message}`);
    }
    schema = JsonTask;
  }
  const parsed = z.array(schema).min(1).safeParse(raw);
  if (!parsed.success) throw new BridleEvalError("InvalidTask", `${source}: ${describe(parsed.error)}`);
  return parsed.data.map((task) => ({
    id: task.id,
    prompt: task.prompt,
    category: task.category,
    input: tree(task.input),
    expected: tree(task.expected),
  }));
}
