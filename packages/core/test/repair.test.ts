import { argumentAliases, defineTool, Harness, parseToolArguments, toolJsonSchema } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { resultText } from "./helpers.js";

const editSchema = z.object({
  path: z.string(),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
});
const bashSchema = z.object({ command: z.string(), timeout_ms: z.number().int().optional() });
const readSchema = z.object({ path: z.string(), offset: z.number().int().optional() });

const editAliases = argumentAliases({
  filePath: "path",
  oldString: "old_string",
  newString: "new_string",
  replaceAll: "replace_all",
});

/** An edit_file that records what it ran with (and takes `aliases`, if given) beside a plain read_file. */
function editAndRead(ran: unknown[], aliases?: ReturnType<typeof argumentAliases>) {
  const edit = defineTool({
    name: "edit_file",
    description: "edit",
    inputSchema: editSchema,
    ...(aliases ? { prepareArguments: aliases } : {}),
    execute: async (args) => {
      ran.push(args);
      return { content: "edited" };
    },
  });
  const read = defineTool({
    name: "read_file",
    description: "read",
    inputSchema: readSchema,
    execute: async () => ({ content: "text" }),
  });
  return { edit, read };
}

describe("allowed repairs (seed 000)", () => {
  it("renames the aliases a tool declares, filePath, oldString, newString and replaceAll", () => {
    const parsed = parseToolArguments(
      editSchema,
      JSON.stringify({ filePath: "a.ts", oldString: "x", newString: "y", replaceAll: true }),
      editAliases,
    );
    expect(parsed).toEqual({
      ok: true,
      value: { path: "a.ts", old_string: "x", new_string: "y", replace_all: true },
      repairs: ["filePath→path", "oldString→old_string", "newString→new_string", "replaceAll→replace_all"],
    });
  });

  it("renames nothing for a tool that declares no aliases", () => {
    const parsed = parseToolArguments(editSchema, '{"filePath":"a.ts","old_string":"x","new_string":"y"}');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems).toContain('filePath: unknown field (did you mean "path"?)');
  });

  it("names the field an unknown spelling most likely meant, and nothing when it is unclear", () => {
    const problems = (schema: Parameters<typeof parseToolArguments>[0], raw: object) => {
      const parsed = parseToolArguments(schema, JSON.stringify(raw));
      return parsed.ok ? [] : parsed.problems;
    };
    expect(problems(editSchema, { path: "a", oldString: "x", new_string: "y" })).toContain(
      'oldString: unknown field (did you mean "old_string"?)',
    );
    expect(problems(bashSchema, { command: "ls", timeoutMs: 5 })).toContain(
      'timeoutMs: unknown field (did you mean "timeout_ms"?)',
    );
    // The field it could mean is already there, or nothing is like it: no guess.
    expect(problems(readSchema, { path: "a", filePath: "b" })).toContain("filePath: unknown field");
    expect(problems(editSchema, { path: "a", old_string: "x", new_string: "y", mode: 1 })).toContain(
      "mode: unknown field",
    );
  });

  it("renames cmd to command for a tool that accepts it, and turns a string integer into a number", () => {
    const parsed = parseToolArguments(
      bashSchema,
      '{"cmd":"ls","timeout_ms":"5000"}',
      argumentAliases({ cmd: "command" }),
    );
    expect(parsed).toMatchObject({
      ok: true,
      value: { command: "ls", timeout_ms: 5000 },
      repairs: ["cmd→command", 'timeout_ms: "5000"→5000'],
    });
  });

  it("turns a throw from the tool's preparation into a refusal the model reads", () => {
    const parsed = parseToolArguments(readSchema, '{"path":"a"}', () => {
      throw new Error("paths must be relative");
    });
    expect(parsed).toMatchObject({ ok: false, problems: ["arguments refused: paths must be relative"] });
  });

  it("turns string booleans into booleans where the schema wants one", () => {
    const parsed = parseToolArguments(
      editSchema,
      '{"path":"a","old_string":"x","new_string":"y","replace_all":"true"}',
    );
    expect(parsed).toMatchObject({ ok: true, value: { replace_all: true } });
  });

  it("cleans markdown links and autolinks on path fields", () => {
    expect(parseToolArguments(readSchema, '{"path":"[src/a.ts](src/a.ts)"}')).toMatchObject({
      ok: true,
      value: { path: "src/a.ts" },
    });
    expect(parseToolArguments(readSchema, '{"path":"<src/a.ts>"}')).toMatchObject({
      ok: true,
      value: { path: "src/a.ts" },
    });
  });

  it("leaves valid arguments untouched and reports no repairs", () => {
    expect(parseToolArguments(readSchema, '{"path":"[x](y)"}')).toEqual({
      ok: true,
      value: { path: "[x](y)" },
      repairs: [],
    });
  });
});

describe("refused repairs", () => {
  it("does not repair while an unknown field remains", () => {
    const parsed = parseToolArguments(
      editSchema,
      '{"filePath":"a","old_string":"x","new_string":"y","mode":"fast"}',
      editAliases,
    );
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems).toContain("mode: unknown field");
  });

  it("does not repair while another schema problem remains", () => {
    const parsed = parseToolArguments(editSchema, '{"filePath":"a","old_string":"x"}', editAliases);
    expect(parsed.ok).toBe(false);
  });

  it("does not rename an alias when the real field is also present", () => {
    const parsed = parseToolArguments(readSchema, '{"path":"a","filePath":"b"}', editAliases);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems).toContain("filePath: unknown field");
  });

  it("does not coerce anything but exact booleans and numbers", () => {
    expect(
      parseToolArguments(editSchema, '{"path":"a","old_string":"x","new_string":"y","replace_all":"yes"}').ok,
    ).toBe(false);
    expect(parseToolArguments(bashSchema, '{"command":"ls","timeout_ms":"5s"}').ok).toBe(false);
    expect(parseToolArguments(bashSchema, '{"command":"ls","timeout_ms":"1.5"}').ok).toBe(false);
  });

  it("rejects malformed JSON and non-object arguments", () => {
    expect(parseToolArguments(readSchema, '{"path": "a"')).toMatchObject({ ok: false });
    expect(parseToolArguments(readSchema, '["a"]')).toMatchObject({
      ok: false,
      problems: ["arguments must be a JSON object"],
    });
  });

  it("never infers a missing path from history", async () => {
    const { dir, cleanup } = await tempWorkspace();
    try {
      const ran: unknown[] = [];
      const { edit, read } = editAndRead(ran);
      const model = new ScriptedModel([
        { toolCalls: [{ name: "read_file", arguments: { path: "a.ts" } }] },
        { toolCalls: [{ name: "edit_file", arguments: { old_string: "x", new_string: "y" } }] },
        { text: "ok" },
      ]);
      const result = await new Harness({ model, tools: [read, edit], workspace: dir }).run({ prompt: "go" });
      expect(ran).toEqual([]);
      expect(resultText(result.messages[4])).toMatch(/^InvalidInput: the arguments for tool "edit_file"/);
    } finally {
      await cleanup();
    }
  });
});

describe("InvalidInput text", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempWorkspace());
  });
  afterEach(() => cleanup());

  it("names the tool, the problems and the fields, and stays short for a 1 MB argument", async () => {
    const huge = "A".repeat(1024 * 1024);
    const write = defineTool({
      name: "write_file",
      description: "write",
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async () => ({ content: "written" }),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_file", arguments: { content: huge, mode: 7 } }] },
      { text: "ok" },
    ]);
    const result = await new Harness({ model, tools: [write], workspace: dir }).run({ prompt: "go" });
    const text = resultText(result.messages[2]);
    expect(text.length).toBeLessThan(1000);
    expect(text).toContain('tool "write_file"');
    expect(text).toContain("path:");
    expect(text).toContain("mode: unknown field");
    expect(text).toContain(`content (string, ${huge.length} chars: "${"A".repeat(40)}…")`);
    expect(text).not.toContain("A".repeat(41));
  });

  it("counts invalid calls against the tool's retry budget and stops past it", async () => {
    const tool = defineTool({
      name: "strict",
      description: "strict",
      inputSchema: z.object({ n: z.number() }),
      retryBudget: 2,
      execute: async () => ({ content: "ok" }),
    });
    const bad = { toolCalls: [{ name: "strict", arguments: { n: "many" } }] };
    const model = new ScriptedModel([bad, bad, bad, { text: "never" }]);
    const result = await new Harness({ model, tools: [tool], workspace: dir }).run({ prompt: "go" });
    expect(result.stopReason).toBe("tool_retries_exceeded");
    expect(result.usage.toolRetries).toEqual({ strict: 3 });
    expect(model.calls).toBe(3);
  });
});

describe("the schema the model sees", () => {
  it("is derived from the enforced schema and forbids unknown fields", () => {
    const schema = toolJsonSchema(editSchema);
    expect(schema).toEqual({
      type: "object",
      properties: {
        path: { type: "string" },
        old_string: { type: "string" },
        new_string: { type: "string" },
        replace_all: { type: "boolean" },
      },
      required: ["path", "old_string", "new_string"],
      additionalProperties: false,
    });
  });

  it("is what the model receives in its request", async () => {
    const tool = defineTool({
      name: "read_file",
      description: "Read a file",
      inputSchema: readSchema.extend({ limit: z.number().int().min(1).max(2000).default(2000) }),
      execute: async () => ({ content: "" }),
    });
    const model = new ScriptedModel([{ text: "ok" }]);
    await new Harness({ model, tools: [tool] }).run({ prompt: "go" });
    const seen = model.requests[0]?.tools[0];
    expect(seen?.name).toBe("read_file");
    expect(seen?.inputSchema).toEqual(toolJsonSchema(tool.inputSchema));
    expect(seen?.inputSchema.properties).toMatchObject({
      limit: { type: "integer", minimum: 1, maximum: 2000, default: 2000 },
    });
  });
});

describe("a tool's own argument preparation in a run", () => {
  it("renames the tool's aliases before validation and records the repair on tool_call_requested", async () => {
    const { dir, cleanup } = await tempWorkspace();
    try {
      const ran: unknown[] = [];
      const { edit, read: plain } = editAndRead(ran, editAliases);
      const model = new ScriptedModel([
        {
          toolCalls: [
            { name: "edit_file", arguments: { filePath: "a.ts", oldString: "x", newString: "y" } },
            { name: "read_file", arguments: { filePath: "a.ts" } },
          ],
        },
        { text: "ok" },
      ]);
      const stream = new Harness({ model, tools: [edit, plain], workspace: dir }).stream({ prompt: "go" });
      const events = await collectEvents(stream);
      const result = await stream.result;
      expect(ran).toEqual([{ path: "a.ts", old_string: "x", new_string: "y" }]);
      const requested = events.flatMap((e) => (e.type === "tool_call_requested" ? [e.repairs] : []));
      expect(requested).toEqual([["filePath→path", "oldString→old_string", "newString→new_string"], []]);
      // read_file declared no alias: the model is told which field it sent and which the tool wants.
      const refused = resultText(result.messages[3]);
      expect(refused).toContain("filePath: unknown field");
      expect(refused).toContain("path:");
    } finally {
      await cleanup();
    }
  });
});
