import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  anthropicMessagesFormat,
  FakeProviderServer,
  jsonEvent,
  openaiResponsesFormat,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, runCli } from "./cli-harness.js";

// Each tool vocabulary end to end: the built CLI, a scripted model on its own provider's wire format
// (loopback fake servers), real files and real commands.

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;
const GREET = 'export const greet = (name) => "Helo, " + name;\n';

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-profiles-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  await writeFile(join(repo, "src", "greet.js"), GREET);
  env = {
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key",
    ANTHROPIC_API_KEY: "test-key",
  };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

type Body = { tools?: { type?: string; name?: string }[]; input?: { type?: string; output?: unknown }[] };

/** One Responses turn whose only output is a call to a custom (free-form) tool with raw text input. */
function customToolCall(callId: string, name: string, input: string) {
  const response = {
    id: "resp_c",
    object: "response",
    model: "gpt-5-mini",
    output: [],
    status: "in_progress",
  };
  const item = { type: "custom_tool_call", id: `ctc_${callId}`, call_id: callId, name, input };
  return [
    jsonEvent({ type: "response.created", response }, true),
    jsonEvent({ type: "response.output_item.added", output_index: 0, item: { ...item, input: "" } }, true),
    jsonEvent(
      { type: "response.custom_tool_call_input.delta", item_id: item.id, output_index: 0, delta: input },
      true,
    ),
    jsonEvent(
      { type: "response.custom_tool_call_input.done", item_id: item.id, output_index: 0, input },
      true,
    ),
    jsonEvent({ type: "response.output_item.done", output_index: 0, item }, true),
    jsonEvent(
      { type: "response.completed", response: { ...response, status: "completed", usage: null } },
      true,
    ),
  ];
}

/** Every tool output the last request carried back to the model, whatever its item type. */
function outputsOf(body: unknown): string {
  const input = (body as Body).input ?? [];
  return input
    .filter((item) => item.type === "function_call_output" || item.type === "custom_tool_call_output")
    .map((item) => (typeof item.output === "string" ? item.output : JSON.stringify(item.output)))
    .join("\n");
}

describe("--profile openai on OpenAI Responses", () => {
  it("an OpenAI model gets Codex's names by default: read_file (L-numbered), apply_patch as a custom tool, shell with argv", async () => {
    server = await FakeProviderServer.start();
    const patch = [
      "*** Begin Patch",
      "*** Update File: src/greet.js",
      "@@",
      '-export const greet = (name) => "Helo, " + name;',
      '+export const greet = (name) => "Hello, " + name;',
      "*** End Patch",
    ].join("\n");
    server.enqueue(
      {
        kind: "stream",
        events: openaiResponsesFormat.events({
          toolCalls: [call("c1", "read_file", { file_path: "src/greet.js" })],
        }),
      },
      { kind: "stream", events: customToolCall("c2", "apply_patch", patch) },
      {
        kind: "stream",
        events: openaiResponsesFormat.events({
          toolCalls: [call("c3", "shell", { command: ["bash", "-lc", "cat src/greet.js"] })],
        }),
      },
      { kind: "stream", events: openaiResponsesFormat.events({ text: "Fixed the greeting." }) },
    );
    const run = await runCli(
      [
        "run",
        "fix the greeting",
        "--provider",
        "openai",
        "--model",
        "gpt-5-mini",
        "--base-url",
        openaiResponsesFormat.baseUrl(server.url),
        "--cwd",
        repo,
      ],
      { cwd: dir, env },
    );
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Fixed the greeting.");
    expect(await readFile(join(repo, "src", "greet.js"), "utf8")).toBe(GREET.replace("Helo", "Hello"));

    const first = server.requests[0]?.body as Body;
    const tools = first.tools ?? [];
    expect(tools.find((tool) => tool.name === "apply_patch")?.type).toBe("custom");
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["shell", "apply_patch", "read_file", "grep_files", "tool_search"]),
    );
    for (const generic of ["bash", "edit_file", "write_file", "grep", "glob"])
      expect(names).not.toContain(generic);
    // Listing and the plan wait behind tool_search until the model asks for them.
    for (const deferred of ["list_dir", "update_plan"]) expect(names).not.toContain(deferred);

    expect(outputsOf(server.requests[1]?.body)).toContain(
      'L1: export const greet = (name) => "Helo, " + name;',
    );
    expect(outputsOf(server.requests[2]?.body)).toMatch(/Success|Updated|M src\/greet\.js/);
    expect(outputsOf(server.requests[3]?.body)).toMatch(
      /^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nexport const greet = \(name\) => "Hello, "/m,
    );
  });
});

describe("--profile anthropic on Anthropic Messages", () => {
  it("a Claude model gets Claude Code's names by default: Read, Edit, Bash, TodoWrite with their argument names", async () => {
    server = await FakeProviderServer.start();
    const turns = [
      // TodoWrite waits behind ToolSearch until the model asks for it.
      { toolCalls: [call("t0", "ToolSearch", { query: "TodoWrite" })] },
      {
        toolCalls: [
          call("t1", "TodoWrite", {
            todos: [
              { content: "Fix the greeting", status: "in_progress", activeForm: "Fixing the greeting" },
            ],
          }),
        ],
      },
      { toolCalls: [call("t2", "Read", { file_path: "src/greet.js" })] },
      {
        toolCalls: [
          call("t3", "Edit", { file_path: "src/greet.js", old_string: '"Helo, "', new_string: '"Hello, "' }),
        ],
      },
      { toolCalls: [call("t4", "Bash", { command: "grep -c Hello src/greet.js; exit 4" })] },
      { text: "Fixed the greeting." },
    ];
    for (const turn of turns)
      server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events(turn) });
    const run = await runCli(
      [
        "run",
        "fix the greeting",
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-4-6",
        "--base-url",
        anthropicMessagesFormat.baseUrl(server.url),
        "--cwd",
        repo,
      ],
      { cwd: dir, env },
    );
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Fixed the greeting.");
    expect(await readFile(join(repo, "src", "greet.js"), "utf8")).toBe(GREET.replace("Helo", "Hello"));

    const bodies = server.requests.map(
      (request) => request.body as { tools?: { name: string }[]; messages?: unknown[] },
    );
    const names = (bodies[0]?.tools ?? []).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["Bash", "Read", "Write", "Edit", "Grep", "ToolSearch"]));
    for (const generic of ["bash", "read_file", "edit_file", "write_file", "grep", "glob", "update_plan"]) {
      expect(names).not.toContain(generic);
    }
    for (const deferred of ["MultiEdit", "Glob", "TodoWrite"]) expect(names).not.toContain(deferred);
    expect((bodies[1]?.tools ?? []).map((tool) => tool.name)).toContain("TodoWrite");
    const results = (index: number) => JSON.stringify(bodies[index]?.messages?.at(-1));
    expect(results(2)).toContain("Todo list updated: 0 of 1 completed.");
    expect(results(3)).toMatch(/1\\texport const greet/);
    expect(results(4)).toContain("Edited src/greet.js");
    expect(results(5)).toContain("1\\nExit code 4");
  });
});

describe("bridle tools list", () => {
  it("says which profile and edit format it chose and why, per provider and model family", async () => {
    const local = await runCli(
      ["tools", "list", "--provider", "openai-chat", "--model", "qwen2.5-coder:7b", "--cwd", repo],
      { cwd: dir, env },
    );
    expect(local.code).toBe(0);
    expect(local.stdout).toMatch(
      /^profile: generic \(qwen2\.5-coder:7b is not a model family Bridle recognises/m,
    );
    expect(local.stdout).toMatch(/^edit format: hashline \(/m);
    expect(local.stdout).toMatch(/^edit_file \{path, edits, verbatim\?\}/m);

    const claude = await runCli(
      ["tools", "list", "--provider", "anthropic", "--model", "claude-opus-4-1", "--cwd", repo],
      {
        cwd: dir,
        env,
      },
    );
    expect(claude.stdout).toMatch(/^profile: anthropic \(claude-opus-4-1 is a Claude model on anthropic/m);
    expect(claude.stdout).toMatch(/^edit format: replace \(claude-opus-4-1 is a Claude model/m);

    const gpt = await runCli(["tools", "list", "--cwd", repo], { cwd: dir, env });
    expect(gpt.stdout).toMatch(/^profile: openai \(gpt-5-mini is an OpenAI model on openai/m);
    expect(gpt.stdout).toMatch(
      /^edit format: apply_patch \(gpt-5-mini is an OpenAI model, trained on apply_patch\)/m,
    );

    const forced = await runCli(
      ["tools", "list", "--profile", "generic", "--edit-format", "replace", "--cwd", repo],
      {
        cwd: dir,
        env,
      },
    );
    expect(forced.stdout).toContain("profile: generic (set by --profile or the config)");
    expect(forced.stdout).toContain("edit format: replace (set by --edit-format or the config)");
  });

  it("shows exactly one vocabulary: no tool name twice, none of another profile's, in every profile and edit format", async () => {
    const own = {
      generic: ["read_file", "bash", "grep"],
      openai: ["shell", "read_file", "grep_files", "update_plan"],
      anthropic: ["Bash", "Read", "Grep", "TodoWrite"],
    };
    const foreign = {
      generic: ["shell", "Bash", "Read", "grep_files", "TodoWrite"],
      openai: ["bash", "grep", "glob", "Bash", "Read", "TodoWrite"],
      anthropic: ["bash", "shell", "read_file", "grep", "grep_files", "update_plan", "edit_file"],
    };
    for (const profile of ["generic", "openai", "anthropic"] as const) {
      for (const format of ["replace", "hashline", "apply_patch"]) {
        const run = await runCli(
          ["tools", "list", "--json", "--profile", profile, "--edit-format", format, "--cwd", repo],
          { cwd: dir, env },
        );
        expect(run.code).toBe(0);
        const names = (JSON.parse(run.stdout) as { name: string }[]).map((tool) => tool.name);
        expect(new Set(names).size, `${profile} ${format}: ${names.join(", ")}`).toBe(names.length);
        expect(names).toEqual(expect.arrayContaining(own[profile]));
        for (const name of foreign[profile]) expect(names, `${profile} ${format}`).not.toContain(name);
      }
    }
  });

  it("with --skills the profile is generic (allowed-tools are enforced on generic names); another profile is refused", async () => {
    const skills = join(dir, "skills");
    await mkdir(join(skills, "git-only"), { recursive: true });
    await writeFile(
      join(skills, "git-only", "SKILL.md"),
      "---\nname: git-only\ndescription: Look at git state only.\nallowed-tools: Bash(git status:*) Read\n---\n# Git only\n",
    );
    const listed = await runCli(["tools", "list", "--skills", skills, "--cwd", repo], { cwd: dir, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^profile: generic \(--skills: allowed-tools are enforced on the generic tool names\)/m,
    );
    expect(listed.stdout).toMatch(/^bash \{/m);
    const refused = await runCli(
      ["tools", "list", "--skills", skills, "--profile", "anthropic", "--cwd", repo],
      {
        cwd: dir,
        env,
      },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--profile anthropic cannot be used with --skills");
  });

  it("--profile NAME --json prints that profile's tools, and an unknown profile is bad usage", async () => {
    const json = await runCli(["tools", "list", "--profile", "anthropic", "--json", "--cwd", repo], {
      cwd: dir,
      env,
    });
    expect(json.code).toBe(0);
    const tools = JSON.parse(json.stdout) as {
      name: string;
      inputSchema: { properties: Record<string, unknown> };
    }[];
    const names = tools.map((tool) => tool.name);
    // gpt-5-mini's edit format (apply_patch) under Claude Code's names.
    expect(names).toEqual(
      expect.arrayContaining(["Bash", "Read", "Write", "apply_patch", "Glob", "Grep", "TodoWrite"]),
    );
    expect(Object.keys(tools.find((tool) => tool.name === "Read")?.inputSchema.properties ?? {})).toContain(
      "file_path",
    );
    const bad = await runCli(["tools", "list", "--profile", "codex", "--cwd", repo], { cwd: dir, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/profile/);
  });
});
