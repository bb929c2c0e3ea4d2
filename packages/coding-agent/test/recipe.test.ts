// The recipe as an embedder calls it: real tools in a temp git repository, a scripted model or a provider
// added by descriptor, the JSONL store in a temp folder.
import { spawnSync } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProviderDescriptor } from "@bridle/provider-kit";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CodingAgentError,
  type CodingAgentSettings,
  createCodingAgent,
  SYSTEM_PROMPT,
  settleProvider,
} from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-recipe-"));
  await writeFile(join(dir, "notes.txt"), "hello\n");
  spawnSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
});
afterEach(() => cleanup());

const settings = (over: Partial<CodingAgentSettings> = {}): CodingAgentSettings => ({
  provider: "openai",
  model: "gpt-5-mini",
  cwd: dir,
  store: "jsonl",
  storeDir: join(dir, ".store"),
  dataDir: join(dir, ".data"),
  maxTurns: 5,
  sandbox: "off",
  permissionMode: "workspace",
  mcpStartup: "wait",
  compaction: true,
  instructions: true,
  subagentDepth: 1,
  keepTasks: false,
  memory: true,
  agentFiles: [],
  ...over,
});

const approveAll = { decide: async () => ({ approved: true }) };

describe("createCodingAgent", () => {
  it("builds the agent every front door runs: profile tools, overlay, kit, and the system prompt", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "It says hello." },
    ]);
    const agent = await createCodingAgent(settings({ profile: "generic", editFormat: "replace" }), {
      mode: "run",
      approver: approveAll,
      model,
    });
    try {
      const names = (agent.options.tools ?? []).map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining(["read_file", "write_file", "edit_file", "grep", "bash", "run_check"]),
      );
      // What a first turn rarely needs waits behind the search tool, out of the first request's bytes.
      const deferred = (agent.options.deferredTools ?? []).map((tool) => tool.name);
      expect(deferred).toEqual(
        expect.arrayContaining([
          "list_dir",
          "glob",
          "update_plan",
          "git_diff",
          "handoff_notes",
          "agent_spawn",
        ]),
      );
      expect(deferred).toEqual(expect.arrayContaining(["read_memory", "write_memory"]));
      expect(names.filter((name) => deferred.includes(name))).toEqual([]);
      expect(agent.options.toolSearchName).toBe("tool_search");
      expect(agent.options.system.startsWith(SYSTEM_PROMPT)).toBe(true);
      const session = await agent.store.createSession();
      const result = await agent.harness.run({ prompt: "what does notes.txt say?", sessionId: session.id });
      expect(result.stopReason).toBe("completed");
      expect(result.finalText).toBe("It says hello.");
    } finally {
      await agent.close();
    }
  });

  it("takes the same settings to the same tools in every mode, and in list mode opens no store", async () => {
    const run = await createCodingAgent(settings(), {
      mode: "run",
      approver: approveAll,
      model: new ScriptedModel([]),
    });
    const listed = await createCodingAgent(settings({ storeDir: join(dir, "never") }), { mode: "list" });
    try {
      const schemas = (agent: typeof run) =>
        JSON.stringify((agent.options.tools ?? []).map((tool) => [tool.name, tool.description]));
      expect(schemas(listed)).toBe(schemas(run));
      expect(listed.options.system).toBe(run.options.system);
      await expect(listed.store.createSession()).rejects.toThrow(/opens no session store/);
      expect(await readdir(dir)).not.toContain("never");
    } finally {
      await run.close();
      await listed.close();
    }
  });

  it("honours the settings that shape the tools: read-only mode, no overlay, no memory", async () => {
    const agent = await createCodingAgent(
      settings({ permissionMode: "read-only", coding: { enabled: false, repairAttempts: 0 }, memory: false }),
      { mode: "list" },
    );
    try {
      const names = (agent.options.tools ?? []).map((tool) => tool.name);
      expect(names).toContain("read_file");
      expect(names).not.toContain("write_file");
      expect(names).not.toContain("run_check");
      expect(names).not.toContain("write_memory");
    } finally {
      await agent.close();
    }
  });

  it("refuses contradicting settings with a typed error", async () => {
    await expect(
      createCodingAgent(settings({ permissionMode: "full-access", sandbox: "bwrap" }), { mode: "list" }),
    ).rejects.toMatchObject({ name: "CodingAgentError", code: "invalid_settings" });
    await expect(
      createCodingAgent(settings({ provider: "nope" }), { mode: "run", approver: approveAll }),
    ).rejects.toThrow(/no provider named "nope" \(known: openai, openai-chat, anthropic, ai-sdk\)/);
  });
});

describe("a provider added by one descriptor", () => {
  const replies: string[] = [];
  const fixture: ProviderDescriptor = {
    name: "fixture",
    label: "Fixture Chat",
    keyVariables: ["FIXTURE_API_KEY"],
    keyNeeded: "always",
    defaultModel: "fixture-1",
    models: {},
    modelPattern: /^fixture-/,
    create: (options) => {
      replies.push(options.model);
      return new ScriptedModel([{ text: `hello from ${options.model}` }], {
        provider: "fixture",
        model: options.model,
      });
    },
  };

  it("is chosen by name, needs its key, and runs", async () => {
    await expect(
      settleProvider(settings({ provider: "fixture", model: "fixture-1" }), {
        providerGiven: true,
        env: {},
        extra: [fixture],
      }),
    ).rejects.toThrow("--provider fixture needs FIXTURE_API_KEY, which is not set");
    // Not named, with no key anywhere: every provider's key variable is listed, the added one's too.
    await expect(
      settleProvider(settings({ provider: "openai", model: "gpt-5-mini" }), {
        providerGiven: false,
        env: {},
        extra: [fixture],
      }),
    ).rejects.toThrow(/^no API key: set OPENAI_API_KEY, ANTHROPIC_API_KEY or FIXTURE_API_KEY/);
    // A model name that belongs to it is followed there when no provider was named.
    const settled = await settleProvider(settings({ model: "fixture-2" }), {
      providerGiven: false,
      env: { FIXTURE_API_KEY: "k" },
      extra: [fixture],
    });
    expect(settled.provider).toBe("fixture");
    const agent = await createCodingAgent(settled, {
      mode: "run",
      approver: approveAll,
      providers: [fixture],
    });
    try {
      const result = await agent.harness.run({ prompt: "hi" });
      expect(result.finalText).toBe("hello from fixture-2");
      expect(replies).toContain("fixture-2");
    } finally {
      await agent.close();
    }
  });

  it("keeps the built-in rules: no key at all is one clear line", async () => {
    const error = await settleProvider(settings(), { providerGiven: false, env: {} }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CodingAgentError);
    expect((error as Error).message).toMatch(/^no API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY/);
    const anthropic = await settleProvider(settings(), {
      providerGiven: false,
      env: { ANTHROPIC_API_KEY: "k" },
    });
    expect(anthropic).toMatchObject({ provider: "anthropic", model: "claude-sonnet-4-6" });
  });
});
