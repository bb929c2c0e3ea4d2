import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AnyTool, ToolFailure, type ToolOutput, textOf, Workspace } from "@bridle/core";

/** Small skills written for these tests: they always run. */
export const OWN_SKILLS = fileURLToPath(new URL("./fixtures/skills/", import.meta.url));

let calls = 0;

/** Call a tool as the harness does: arguments validated by its schema, a context with a signal. */
export async function call(
  tool: AnyTool,
  args: Record<string, unknown>,
  workspace: string | Workspace,
  runId = "run-test",
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolOutput & { text: string; progress: unknown[] }> {
  const progress: unknown[] = [];
  const output = await tool.execute(tool.inputSchema.parse(args), {
    signal,
    workspace: typeof workspace === "string" ? new Workspace(workspace) : workspace,
    runId,
    toolCallId: `call_${++calls}`,
    progress: (data) => progress.push(data),
  });
  const text = typeof output.content === "string" ? output.content : textOf(output.content);
  return { ...output, text, progress };
}

/** The ToolFailure a promise rejects with; a failed assertion when it resolves or throws something else. */
export async function failure(promise: Promise<unknown>): Promise<ToolFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolFailure) return error;
    throw error;
  }
  throw new Error("expected a ToolFailure");
}

/** Write a skill folder: SKILL.md from raw front matter text and a body, plus other files. */
export async function writeSkill(
  root: string,
  folder: string,
  frontMatter: string,
  body = "Do the thing.\n",
  files: Record<string, string> = {},
): Promise<string> {
  const dir = join(root, folder);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\n${frontMatter.trim()}\n---\n${body}`);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}
