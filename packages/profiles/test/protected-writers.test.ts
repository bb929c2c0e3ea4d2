import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type AnyTool, Harness, type ToolResultMessage, textOf, Workspace } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { lineTag } from "@bridle/tools-edit-hashline";
import { createFsTools } from "@bridle/tools-fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  EDIT_FORMATS,
  type EditFormat,
  PROFILE_NAMES,
  type ProfileName,
  profileTools,
} from "../src/index.js";
import { buildProtectedTree, type ProtectedCase, snapshotTree } from "./protected-tree.js";

// Every tool that writes, in every profile and edit format, is aimed at every protected path through a
// real run: the model sees Denied with core's reason and not one byte on disk changes. None of these
// tools has code of its own for it; core's resolve-for-write refuses them all.

interface Call {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

interface Target {
  readonly path: string;
  readonly firstLine: string | undefined;
}

/** One way a tool writes: the model's calls, reads first (read-before-write is met), the write last. */
interface Attempt {
  readonly tool: string;
  readonly label: string;
  /** `spare` is an ordinary file, for the writes that need a second path (both ends of a move). */
  calls(target: Target, spare: string): Call[];
}

const NEW_TEXT = "written by the model";

function attemptsFor(profile: ProfileName, format: EditFormat, tools: ReadonlySet<string>): Attempt[] {
  const read = (path: string): Call =>
    profile === "generic"
      ? { name: "read_file", arguments: { path } }
      : { name: profile === "openai" ? "read_file" : "Read", arguments: { file_path: path } };
  // Claude Code's tools name the file `file_path`; the generic and Codex writers `path`.
  const key = (tool: string) =>
    tool === "Write" || tool === "Edit" || tool === "MultiEdit" ? "file_path" : "path";
  const out: Attempt[] = [];
  for (const tool of ["write_file", "Write"]) {
    out.push({
      tool,
      label: tool,
      calls: ({ path }) => [
        read(path),
        { name: tool, arguments: { [key(tool)]: path, content: `${NEW_TEXT}\n` } },
      ],
    });
  }
  for (const tool of ["edit_file", "Edit"]) {
    out.push({
      tool,
      label: `${tool} (${format})`,
      calls: ({ path, firstLine }) => [
        read(path),
        {
          name: tool,
          arguments:
            format === "hashline"
              ? {
                  [key(tool)]: path,
                  edits: [{ op: "replace_line", tag: lineTag(1, firstLine ?? ""), new_text: NEW_TEXT }],
                }
              : { [key(tool)]: path, old_string: firstLine ?? "line one", new_string: NEW_TEXT },
        },
      ],
    });
  }
  out.push({
    tool: "MultiEdit",
    label: "MultiEdit",
    calls: ({ path, firstLine }) => [
      read(path),
      {
        name: "MultiEdit",
        arguments: {
          file_path: path,
          edits: [{ old_string: firstLine ?? "line one", new_string: NEW_TEXT }],
        },
      },
    ],
  });
  const patch = (...lines: string[]): Call => ({
    name: "apply_patch",
    arguments: { input: ["*** Begin Patch", ...lines, "*** End Patch"].join("\n") },
  });
  out.push(
    {
      tool: "apply_patch",
      label: "apply_patch update",
      calls: ({ path, firstLine }) => [
        read(path),
        patch(`*** Update File: ${path}`, "@@", `-${firstLine ?? "line one"}`, `+${NEW_TEXT}`),
      ],
    },
    {
      tool: "apply_patch",
      label: "apply_patch delete",
      calls: ({ path }) => [read(path), patch(`*** Delete File: ${path}`)],
    },
    {
      tool: "apply_patch",
      label: "apply_patch add",
      calls: ({ path }) => [patch(`*** Add File: ${path}`, `+${NEW_TEXT}`)],
    },
    {
      tool: "apply_patch",
      label: "apply_patch move from",
      calls: ({ path }, spare) => [
        read(path),
        patch(`*** Update File: ${path}`, `*** Move to: ${spare}.moved`),
      ],
    },
    {
      tool: "apply_patch",
      label: "apply_patch move onto",
      calls: ({ path }, spare) => [read(spare), patch(`*** Update File: ${spare}`, `*** Move to: ${path}`)],
    },
  );
  return out.filter((attempt) => tools.has(attempt.tool));
}

interface Outcome {
  readonly result: ToolResultMessage;
  readonly text: string;
}

/** The model makes the calls, one per turn, in a real run; the last call's result is what it saw. */
async function run(
  workspace: Workspace,
  tools: readonly AnyTool[],
  calls: readonly Call[],
): Promise<Outcome> {
  const model = new ScriptedModel([...calls.map((call) => ({ toolCalls: [call] })), { text: "done" }]);
  const events = await collectEvents(new Harness({ model, tools, workspace }).stream({ prompt: "write" }));
  expect(events.at(-1)?.type).toBe("run_completed");
  const results = events.flatMap((event) => (event.type === "tool_call_completed" ? [event.result] : []));
  expect(results).toHaveLength(calls.length);
  const result = results.at(-1) as ToolResultMessage;
  return { result, text: textOf(result.content) };
}

/** What an attempt does to ordinary files: which must exist first, and each path's content after (null: gone). */
function ordinaryEffect(attempt: Attempt, path: string, spare: string) {
  switch (attempt.label) {
    case "apply_patch add":
      return { existsFirst: false, after: { [path]: `${NEW_TEXT}\n` } };
    case "apply_patch delete":
      return { existsFirst: true, after: { [path]: null } };
    case "apply_patch move from":
      return { existsFirst: true, after: { [path]: null, [`${spare}.moved`]: ORDINARY } };
    case "apply_patch move onto":
      return { existsFirst: false, after: { [spare]: null, [path]: SPARE } };
    default:
      return { existsFirst: true, after: { [path]: `${NEW_TEXT}\n` } };
  }
}

const ORDINARY = "line one\n";
const SPARE = "line one of a spare\n";
const USER_CONFIG = "xdg/bridle";

let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: root, cleanup } = await tempWorkspace("bridle-protected-writers-"));
});
afterAll(() => cleanup());

describe.each(PROFILE_NAMES.flatMap((profile) => EDIT_FORMATS.map((format) => [profile, format] as const)))(
  "the %s profile with %s edits",
  (profile, format) => {
    let dir: string;
    let workspace: Workspace;
    let cases: ProtectedCase[];
    let tools: AnyTool[];
    let attempts: Attempt[];
    let spares = 0;
    const spare = async (): Promise<string> => {
      const path = `ok/spare-${++spares}.txt`;
      await writeFile(join(dir, path), SPARE);
      return path;
    };

    beforeAll(async () => {
      dir = join(root, `${profile}-${format}`);
      // The user's config folder, reachable from the workspace: the Workspace reads where it is when built.
      vi.stubEnv("XDG_CONFIG_HOME", join(dir, "xdg"));
      try {
        cases = await buildProtectedTree(dir, USER_CONFIG);
        workspace = new Workspace({ roots: [dir] });
      } finally {
        vi.unstubAllEnvs();
      }
      await mkdir(join(dir, "ok"));
      tools = profileTools({ profile, editFormat: format, fs: createFsTools() });
      attempts = attemptsFor(profile, format, new Set(tools.map((tool) => tool.name)));
    });

    it("has an attempt for every tool that writes, and every case is protected by core's rule", () => {
      const writers = tools.filter((tool) => tool.annotations?.destructive).map((tool) => tool.name);
      expect(writers.length).toBeGreaterThan(0);
      expect(new Set(attempts.map((attempt) => attempt.tool))).toEqual(new Set(writers));
      for (const { judgedAs } of cases) {
        expect(workspace.protectedReason(resolve(dir, judgedAs)), judgedAs).toBeTruthy();
      }
    });

    it("refuses every writer on every protected path with core's reason, and nothing on disk changes", async () => {
      let refused = 0;
      // A refused write changes nothing, so one ordinary file serves every attempt that needs a second path.
      const extra = await spare();
      for (const attempt of attempts) {
        for (const target of cases) {
          const before = await snapshotTree(dir);
          const { result, text } = await run(workspace, tools, attempt.calls(target, extra));
          const where = `${attempt.label} on ${target.path}: ${text}`;
          expect(result.isError, where).toBe(true);
          expect(result.errorKind, where).toBe("Denied");
          expect(text, where).toContain(workspace.protectedReason(resolve(dir, target.judgedAs)));
          expect(await snapshotTree(dir), where).toEqual(before);
          refused++;
        }
      }
      expect(refused).toBe(attempts.length * cases.length);
      // Hundreds of real runs with two tree snapshots each: a loaded machine needs room, nothing is timed.
    }, 300_000);

    it("lets the same writers change ordinary files and the agent's data folders", async () => {
      for (const attempt of attempts) {
        for (const place of ["ok", ".bridle/tmp"]) {
          await mkdir(join(dir, place), { recursive: true });
          const path = `${place}/${attempt.label.replace(/\W+/g, "-")}.txt`;
          const extra = await spare();
          const effect = ordinaryEffect(attempt, path, extra);
          if (effect.existsFirst) await writeFile(join(dir, path), ORDINARY);
          const { result, text } = await run(
            workspace,
            tools,
            attempt.calls({ path, firstLine: "line one" }, extra),
          );
          expect(result.isError, `${attempt.label} on ${path}: ${text}`).toBe(false);
          for (const [file, content] of Object.entries(effect.after)) {
            const now = await readFile(join(dir, file), "utf8").catch(() => null);
            expect(now, `${attempt.label}: ${file}`).toBe(content);
          }
        }
      }
    });
  },
);
