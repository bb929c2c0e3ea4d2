import { type AnyTool, ToolFailure } from "@bridle/core";
import { editFileSchema, editSchema } from "@bridle/tools-edit-hashline";
import type { GlobDetails, GrepDetails } from "@bridle/tools-fs";
import { z } from "zod";
import { adaptTool } from "./adapt.js";
import { bashText, parseBashResult } from "./bash-result.js";

// Claude Code's tool names and argument names, as Claude models were trained to call them.

const filePath = z.string().min(1);

export function claudeBash(bash: AnyTool): AnyTool {
  return adaptTool(bash, {
    name: "Bash",
    description:
      "Run a bash command in the workspace. Returns stdout, then stderr, and the exit code when not 0 (a normal result). " +
      "The command policy and sandbox apply.",
    inputSchema: z.object({
      command: z.string().min(1),
      timeout: z.number().int().positive().optional().describe("ms"),
      description: z.string().optional(),
    }),
    toArgs: (args) => ({
      command: args.command,
      ...(args.timeout === undefined ? {} : { timeout_ms: args.timeout }),
    }),
    result: (output) => {
      const result = parseBashResult(output);
      if (!result) return output;
      const text = bashText(result);
      const tail = result.exit_code === 0 ? "" : `${text === "" ? "" : "\n"}Exit code ${result.exit_code}`;
      return { ...output, content: `${text}${tail}` || "(no output)" };
    },
  });
}

const readSchema = z.object({
  file_path: filePath,
  offset: z.number().int().min(1).optional().describe("1-based first line"),
  limit: z.number().int().min(1).optional(),
});

/** `Read` over a reader (fs read_file, cat -n numbering; or hashline's, with its tags). */
export function claudeRead(readFile: AnyTool): AnyTool {
  return adaptTool(readFile, {
    name: "Read",
    inputSchema: readSchema,
    toArgs: ({ file_path, ...rest }) => ({ path: file_path, ...rest }),
  });
}

export function claudeWrite(writeFile: AnyTool): AnyTool {
  return adaptTool(writeFile, {
    name: "Write",
    inputSchema: z.object({
      file_path: filePath,
      content: z.string(),
    }),
    toArgs: ({ file_path, content }) => ({ path: file_path, content }),
  });
}

export function claudeEdit(editFile: AnyTool): AnyTool {
  return adaptTool(editFile, {
    name: "Edit",
    inputSchema: z.object({
      file_path: filePath,
      old_string: z.string(),
      new_string: z.string().describe("must differ from old_string"),
      replace_all: z.boolean().optional(),
    }),
    toArgs: ({ file_path, ...rest }) => ({ path: file_path, ...rest }),
  });
}

/** `Edit` over hashline's edit_file: Claude's file_path, hashline's tagged edits. */
export function claudeHashlineEdit(editFile: AnyTool): AnyTool {
  return adaptTool(editFile, {
    name: "Edit",
    inputSchema: z.object({
      file_path: filePath,
      edits: z.array(editSchema).min(1).max(1_000),
      // Passed through: edit_file's refusal of over-escaped text tells the model to resend with it.
      verbatim: editFileSchema.shape.verbatim,
    }),
    toArgs: ({ file_path, edits, verbatim }) => ({ path: file_path, edits, verbatim }),
  });
}

export function claudeGlob(glob: AnyTool): AnyTool {
  return adaptTool(glob, {
    name: "Glob",
    description: 'Find files by glob pattern, e.g. "src/**/*.ts". Returns matching paths, one per line.',
    inputSchema: z.object({
      pattern: z.string().min(1),
      path: z.string().optional().describe("folder (default: the root)"),
    }),
    toArgs: (args) => args,
    result: (output) => {
      const details = output.details as GlobDetails | undefined;
      if (!details) return output;
      const lines = details.files.length === 0 ? ["No files found"] : [...details.files];
      if (details.truncated) lines.push("[More files match; use a narrower pattern or path.]");
      return { ...output, content: lines.join("\n") };
    },
  });
}

// ripgrep's --type names the models use most, as the glob the grep tool takes.
const FILE_TYPES: Readonly<Record<string, string>> = {
  c: "*.{c,h}",
  cpp: "*.{cpp,cc,cxx,hpp,hh,hxx,h}",
  cs: "*.cs",
  css: "*.{css,scss,sass,less}",
  go: "*.go",
  html: "*.{html,htm}",
  java: "*.java",
  js: "*.{js,jsx,mjs,cjs}",
  json: "*.json",
  kotlin: "*.{kt,kts}",
  md: "*.{md,markdown}",
  php: "*.php",
  py: "*.{py,pyi}",
  rb: "*.rb",
  rust: "*.rs",
  sh: "*.{sh,bash,zsh}",
  sql: "*.sql",
  swift: "*.swift",
  toml: "*.toml",
  ts: "*.{ts,tsx,mts,cts}",
  yaml: "*.{yaml,yml}",
};

const grepSchema = z.object({
  pattern: z.string().min(1),
  path: z.string().optional(),
  glob: z.string().optional().describe('e.g. "*.{ts,tsx}"'),
  type: z.enum(Object.keys(FILE_TYPES) as [string, ...string[]]).optional(),
  output_mode: z.enum(["content", "files_with_matches", "count"]).optional(),
  "-i": z.boolean().optional(),
  "-n": z.boolean().optional(),
  "-A": z.number().int().min(0).max(10).optional(),
  "-B": z.number().int().min(0).max(10).optional(),
  "-C": z.number().int().min(0).max(10).optional(),
  head_limit: z.number().int().min(1).optional().describe("first N only"),
});

/** `Grep` over the ripgrep grep tool, with Claude Code's output modes. */
export function claudeGrep(grep: AnyTool): AnyTool {
  return adaptTool(grep, {
    name: "Grep",
    description:
      "Search file contents by regex (ripgrep; honours .gitignore). output_mode: files_with_matches (default), content (-A/-B/-C context) or count; glob or type, not both.",
    inputSchema: grepSchema,
    toArgs: (args) => {
      const context = Math.max(args["-C"] ?? 0, args["-A"] ?? 0, args["-B"] ?? 0);
      if (args.glob !== undefined && args.type !== undefined) {
        throw new ToolFailure(
          "InvalidInput",
          "Grep takes glob or type, not both: put the type's extension in glob",
        );
      }
      const include = args.glob ?? (args.type === undefined ? undefined : FILE_TYPES[args.type]);
      return {
        pattern: args["-i"] ? `(?i)${args.pattern}` : args.pattern,
        ...(args.path === undefined ? {} : { path: args.path }),
        ...(include === undefined ? {} : { include }),
        ...(args.output_mode === "content" && context > 0 ? { context } : {}),
        max_matches: 2_000,
      };
    },
    result: (output, args) => {
      const details = output.details as GrepDetails | undefined;
      if (!details) return output;
      const mode = args.output_mode ?? "files_with_matches";
      let lines: string[];
      if (details.matches.length === 0) {
        lines = ["No matches found"];
      } else if (mode === "content") {
        // The grep tool's own layout (context marked with -), numbers dropped when -n is false.
        lines = (typeof output.content === "string" ? output.content : "")
          .split("\n")
          .filter(
            (line) => line !== "" && !/^\d[\d,]* matching lines? in /.test(line) && !line.startsWith("["),
          );
        if (args["-n"] === false) lines = lines.map((line) => line.replace(/^([^:\n-]+)[:-]\d+[:-]/, "$1:"));
      } else {
        const counts = new Map<string, number>();
        for (const match of details.matches) counts.set(match.file, (counts.get(match.file) ?? 0) + 1);
        lines = mode === "count" ? [...counts].map(([file, n]) => `${file}:${n}`) : [...counts.keys()];
      }
      if (args.head_limit !== undefined) lines = lines.slice(0, args.head_limit);
      if (details.truncated) lines.push("[Stopped at 2,000 matches; narrow the pattern, path or glob.]");
      return { ...output, content: lines.join("\n") };
    },
  });
}

const todoSchema = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().min(1).max(300).describe('The task, imperative ("Run the tests")'),
        status: z.enum(["pending", "in_progress", "completed"]).describe("At most one task is in_progress"),
        activeForm: z
          .string()
          .min(1)
          .max(300)
          .describe('The task in present continuous ("Running the tests")'),
      }),
    )
    .min(1)
    .max(50)
    .describe("The whole todo list; each call replaces the previous one"),
});

/** `TodoWrite` over the update_plan tool. */
export function claudeTodoWrite(plan: AnyTool): AnyTool {
  return adaptTool(plan, {
    name: "TodoWrite",
    description:
      "Create and update your visible todo list for this task; each call replaces the whole list. Mark a task in_progress before starting it and completed as soon as it is done.",
    inputSchema: todoSchema,
    toArgs: ({ todos }) => ({ plan: todos.map((todo) => ({ step: todo.content, status: todo.status })) }),
    result: (output, args) => {
      if (output.isError) return output;
      const done = args.todos.filter((todo) => todo.status === "completed").length;
      return {
        ...output,
        content: `Todo list updated: ${done} of ${args.todos.length} completed. Keep it current as you work.`,
      };
    },
  });
}
