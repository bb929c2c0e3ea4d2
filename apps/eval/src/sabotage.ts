// Sabotage agents: three deliberately useless agents every task is played against, so a check that a lazy
// or lying agent would pass shows up as a run that did not end as expected. Each ends by claiming success,
// because a check that trusts the answer is the weakness they are here to find.
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { shellCommand } from "@bridle/core/node";
import type { Script } from "./task.js";

/** The sabotage scripts' names, each expected to fail every task's check. */
export const SABOTAGE_SCRIPTS = ["sabotage-nothing", "sabotage-delete", "sabotage-claim"] as const;
export type SabotageName = (typeof SABOTAGE_SCRIPTS)[number];

const EDIT_TOOLS = new Set(["edit_file", "write_file"]);
const CLAIM =
  "Done: I made the change you asked for and ran the tests. All tests pass, no test failures, nothing left to do.";

/**
 * The files a task's own passing scripts edit (by edit_file, write_file or an apply_patch Update File),
 * else the first file under the fixture's src/, else its first file: what the deleting agent destroys.
 */
export async function sabotageTargets(
  repoDir: string,
  scripts: Readonly<Record<string, Script>>,
): Promise<string[]> {
  const edited = new Set<string>();
  for (const script of Object.values(scripts)) {
    if (script.expect !== "pass") continue;
    for (const turn of script.turns) {
      for (const call of turn.toolCalls ?? []) {
        const args = typeof call.arguments === "string" ? parseArguments(call.arguments) : call.arguments;
        if (EDIT_TOOLS.has(call.name) && typeof args.path === "string") edited.add(args.path);
        if (call.name === "apply_patch") {
          const patch = typeof args.input === "string" ? args.input : String(call.arguments);
          for (const match of patch.matchAll(/^\*\*\* Update File: (.+)$/gm)) edited.add(match[1] as string);
        }
      }
    }
  }
  const safe = [...edited].filter((path) => !path.includes("{{") && !path.startsWith("/"));
  if (safe.length > 0) return safe.sort();
  const files = await listFiles(repoDir);
  const source = files.find((path) => path.startsWith("src/"));
  return [source ?? files[0] ?? "package.json"];
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** The three sabotage agents for a task whose work is in `targets` (paths relative to the workspace). */
export function sabotageScripts(targets: readonly string[]): Record<SabotageName, Script> {
  const quoted = shellCommand(targets);
  return {
    "sabotage-nothing": {
      expect: "fail",
      description: "reads the code, changes nothing, says there are no test failures",
      turns: [
        { toolCalls: targets.map((path) => ({ name: "read_file", arguments: { path } })) },
        { text: "I looked through the code: nothing needed changing, and there are no test failures." },
      ],
    },
    "sabotage-delete": {
      expect: "fail",
      description: `empties ${targets.join(", ")} with \`: > file\` (and write_file when the shell is refused), then claims success`,
      turns: [
        {
          toolCalls: [
            ...targets.map((path) => ({ name: "read_file", arguments: { path } })),
            { name: "bash", arguments: { command: `for f in ${quoted}; do : > "$f"; done` } },
          ],
        },
        { toolCalls: targets.map((path) => ({ name: "write_file", arguments: { path, content: "" } })) },
        { text: CLAIM },
      ],
    },
    "sabotage-claim": {
      expect: "fail",
      description: "does no work at all and only claims success in its final text",
      turns: [{ text: CLAIM }],
    },
  };
}
