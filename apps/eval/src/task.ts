// A task folder: task.yaml (what to ask, limits, tags), repo/ (the fixture repository), optional outside/
// (files placed beside the workspace, out of its reach), optional dirty/ (uncommitted user changes laid
// over the repository after its commit), optional script.json (scripted model turns) and check.mjs (the
// verdict). Loaded and validated here; nothing in a task folder is trusted as code but check.mjs.
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { BridleEvalError } from "./errors.js";
import { sabotageScripts, sabotageTargets } from "./sabotage.js";

export const TaskLimits = z
  .object({
    /** Model requests at most. */
    maxTurns: z.number().int().positive().default(20),
    maxToolCalls: z.number().int().positive().default(60),
    /** Wall time of one run; the run is aborted past it. */
    timeoutMs: z.number().int().positive().default(300_000),
    /** Input + output tokens of one run; the run is aborted once a response takes it past this. */
    maxTokens: z.number().int().positive().default(500_000),
  })
  .strict();
export type TaskLimits = z.infer<typeof TaskLimits>;

export const TaskSpec = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "lower-case letters, digits, '.', '_' and '-'"),
    suite: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
    prompt: z.string().min(1),
    tags: z.array(z.string()).default([]),
    limits: TaskLimits.default(TaskLimits.parse({})),
    /** Edit tool set the agent gets: replace (edit_file), hashline, apply_patch. */
    format: z.enum(["replace", "hashline", "apply_patch"]).default("replace"),
    /**
     * Who answers approvals: "checks" approves run_check (the project's own detected checks) and denies
     * every other call the policy asks about; "deny" denies them all. Nobody is at a terminal in an eval.
     */
    approvals: z.enum(["checks", "deny"]).default("checks"),
    /**
     * tools-shell's permission mode for the task's shell (default "workspace": in the sandbox commands run
     * unasked). Tasks about what must be asked (approval-bypass) run in "ask", where the policy sorts asks.
     */
    permissionMode: z.enum(["read-only", "workspace", "ask", "full-access"]).default("workspace"),
    /** Failed checks the agent may repair and rerun (the coding overlay's budget). */
    repairAttempts: z.number().int().min(0).max(10).default(2),
  })
  .strict();
export type TaskSpec = z.infer<typeof TaskSpec>;

const ToolCallSpec = z
  .object({ name: z.string().min(1), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]) })
  .strict();

export const ScriptTurn = z
  .object({
    text: z.string().optional(),
    toolCalls: z.array(ToolCallSpec).optional(),
    usage: z
      .object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() })
      .partial()
      .optional(),
    /** Wait this long before answering, as a slow model would (an abort cuts it short). */
    delayMs: z.number().int().nonnegative().max(600_000).optional(),
  })
  .strict();
export type ScriptTurn = z.infer<typeof ScriptTurn>;

export const Script = z
  .object({
    /** What the check should conclude on this script: "fail" marks a deliberately bad agent. */
    expect: z.enum(["pass", "fail"]).default("pass"),
    description: z.string().optional(),
    turns: z.array(ScriptTurn).min(1),
  })
  .strict();
export type Script = z.infer<typeof Script>;

export const ScriptFile = z.object({ scripts: z.record(z.string().regex(/^[a-z0-9_-]+$/), Script) }).strict();

export interface Task {
  readonly dir: string;
  readonly spec: TaskSpec;
  readonly scripts: Readonly<Record<string, Script>>;
  readonly repoDir: string;
  readonly outsideDir: string | undefined;
  /** Files laid over the repository after its commit: the user's uncommitted changes. */
  readonly dirtyDir: string | undefined;
  readonly checkPath: string;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Loads one task folder, or throws an BridleEvalError naming the file and the problem. */
export async function loadTask(dir: string): Promise<Task> {
  const abs = resolve(dir);
  const yamlPath = join(abs, "task.yaml");
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(yamlPath, "utf8"));
  } catch (error) {
    throw new BridleEvalError("InvalidTask", `${yamlPath}: ${(error as Error).message}`);
  }
  const spec = TaskSpec.safeParse(raw);
  if (!spec.success) throw new BridleEvalError("InvalidTask", `${yamlPath}: ${describeIssues(spec.error)}`);
  const repoDir = join(abs, "repo");
  if (!(await exists(repoDir))) throw new BridleEvalError("InvalidTask", `${abs}: no repo/ folder`);
  const checkPath = join(abs, "check.mjs");
  if (!(await exists(checkPath))) throw new BridleEvalError("InvalidTask", `${abs}: no check.mjs`);
  let scripts: Record<string, Script> = {};
  const scriptPath = join(abs, "script.json");
  if (await exists(scriptPath)) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(scriptPath, "utf8"));
    } catch (error) {
      throw new BridleEvalError("InvalidTask", `${scriptPath}: ${(error as Error).message}`);
    }
    const parsed = ScriptFile.safeParse(json);
    if (!parsed.success)
      throw new BridleEvalError("InvalidTask", `${scriptPath}: ${describeIssues(parsed.error)}`);
    scripts = parsed.data.scripts;
  }
  // Every task is also played against the sabotage agents (a task's own script of the same name wins).
  for (const [name, script] of Object.entries(sabotageScripts(await sabotageTargets(repoDir, scripts)))) {
    scripts[name] ??= script;
  }
  const outside = join(abs, "outside");
  const dirty = join(abs, "dirty");
  return {
    dir: abs,
    spec: spec.data,
    scripts,
    repoDir,
    outsideDir: (await exists(outside)) ? outside : undefined,
    dirtyDir: (await exists(dirty)) ? dirty : undefined,
    checkPath,
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

/**
 * The task folders under each path: a folder holding task.yaml is a task; any other folder is searched
 * (suites of tasks, folders of suites). Sorted, so runs are planned in the same order every time.
 */
export async function findTaskDirs(paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string, depth: number): Promise<void> => {
    if (await exists(join(dir, "task.yaml"))) {
      found.push(dir);
      return;
    }
    if (depth > 4) return;
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules") {
        await visit(join(dir, entry.name), depth + 1);
      }
    }
  };
  for (const path of paths) {
    const abs = resolve(path);
    const info = await stat(abs).catch(() => undefined);
    if (!info?.isDirectory()) throw new BridleEvalError("NotFound", `${path}: no such folder`);
    const before = found.length;
    await visit(abs, 0);
    if (found.length === before)
      throw new BridleEvalError("NotFound", `${path}: no task.yaml in or under it`);
  }
  return [...new Set(found)];
}

export const taskName = (task: Task): string => `${task.spec.suite}/${task.spec.id || basename(task.dir)}`;
