import { access, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AnyTool, argumentAliases, defineTool, ToolFailure } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  invalidCalls,
  observe,
  runCalls,
  settlesWithin,
  tempWorkspace,
  toolDeclarationProblems,
  toolOutputProblems,
} from "../src/index.js";
import { describeToolConformance } from "../src/vitest.js";

/** A well-behaved tool: waits until a file exists, then returns its first line; abort stops the wait. */
function waitForFileTool(): AnyTool {
  return defineTool({
    name: "wait_for_file",
    description: "Wait until a file exists in the workspace, then return its first line.",
    inputSchema: z.object({
      path: z.string().describe("File to wait for, relative to the workspace"),
      poll_ms: z.number().int().min(10).max(1_000).optional().describe("How often to look (default 20)"),
    }),
    annotations: { read_only: true, idempotent: true },
    async execute(args, ctx) {
      const target = join(ctx.workspace.root, args.path);
      for (;;) {
        if (ctx.signal.aborted) throw new ToolFailure("Cancelled", "stopped waiting");
        const exists = await access(target).then(
          () => true,
          () => false,
        );
        if (exists) {
          const first = (await readFile(target, "utf8")).split("\n")[0] ?? "";
          return {
            content: first || "(empty first line)",
            details: { path: args.path, bytes: first.length },
          };
        }
        await new Promise((resolve) => setTimeout(resolve, args.poll_ms ?? 20));
      }
    },
  });
}

describeToolConformance("wait_for_file (the suite's own sample)", {
  create: waitForFileTool,
  validArgs: async (workspace) => {
    await writeFile(join(workspace, "ready.txt"), "ready\nmore\n");
    return { path: "ready.txt" };
  },
  slowArgs: () => ({ path: "never-appears.txt" }),
  invalidArgs: () => [{ path: "ready.txt", poll_ms: 5 }],
});

/** The same tool taking `filePath` for `path`, as file tools do for the spelling models often send. */
function aliasedWaitForFileTool(): AnyTool {
  return { ...waitForFileTool(), prepareArguments: argumentAliases({ filePath: "path" }) };
}

describeToolConformance("wait_for_file with an alias", {
  create: aliasedWaitForFileTool,
  validArgs: async (workspace) => {
    await writeFile(join(workspace, "ready.txt"), "ready\n");
    return { path: "ready.txt" };
  },
  aliasedArgs: async (workspace) => {
    await writeFile(join(workspace, "ready.txt"), "ready\n");
    return { filePath: "ready.txt" };
  },
});

describe("the conformance wrapper", () => {
  it("keeps prepareArguments, so an alias reaches the tool through a harness", async () => {
    const { dir, cleanup } = await tempWorkspace();
    try {
      await writeFile(join(dir, "ready.txt"), "first line\n");
      const observed = observe(aliasedWaitForFileTool());
      const { run, results } = await runCalls(observed.tool, ['{"filePath":"ready.txt"}'], dir);
      expect(run.stopReason).toBe("completed");
      expect(observed.executions).toHaveLength(1);
      expect(results[0]?.isError).toBe(false);
      expect(results[0]?.content).toEqual([{ type: "text", text: "first line" }]);

      // Without its prepareArguments the same call is refused: the check above can fail.
      const bare = observe(waitForFileTool());
      const refused = await runCalls(bare.tool, ['{"filePath":"ready.txt"}'], dir);
      expect(bare.executions).toHaveLength(0);
      expect(refused.results[0]?.errorKind).toBe("InvalidInput");
    } finally {
      await cleanup();
    }
  });

  it("keeps a free-form input format", () => {
    const format = { type: "grammar", syntax: "lark", definition: "start: /.+/" } as const;
    const tool: AnyTool = { ...waitForFileTool(), format };
    expect(observe(tool).tool.format).toEqual(format);
  });
});

const good = waitForFileTool();

describe("toolDeclarationProblems", () => {
  it("finds nothing wrong with a good tool", () => {
    expect(toolDeclarationProblems(good)).toEqual([]);
  });

  it("names each problem of a bad declaration", () => {
    const bad = {
      ...good,
      name: "Wait For File",
      description: " short",
      inputSchema: z.looseObject({ path: z.string(), when: z.date().describe("a date") }),
      annotations: { read_only: true, destructive: true, sideways: true } as never,
      timeoutMs: -1,
      retryBudget: 1.5,
    } satisfies AnyTool;
    const problems = toolDeclarationProblems(bad).join("\n");
    expect(problems).toContain('name "Wait For File" does not match');
    expect(problems).toContain("description is shorter than 10 characters");
    expect(problems).toContain("leading or trailing whitespace");
    expect(problems).toContain("cannot be shown to the model as JSON Schema");
    expect(problems).toContain('unknown annotation "sideways"');
    expect(problems).toContain("both read_only and destructive");
    expect(problems).toContain("timeoutMs must be a positive integer");
    expect(problems).toContain("retryBudget must be a non-negative integer");
  });

  it("wants a plain object schema that refuses unknown fields and describes every field", () => {
    const loose = { ...good, inputSchema: z.looseObject({ path: z.string().describe("a path") }) };
    expect(toolDeclarationProblems(loose).join("\n")).toContain("accepts unknown fields");
    const undescribed = { ...good, inputSchema: z.object({ path: z.string() }) };
    expect(toolDeclarationProblems(undescribed)).toEqual([
      'field "path" has no description (.describe(...)): the model guesses what it means',
    ]);
    const notObject = { ...good, inputSchema: z.string() };
    expect(toolDeclarationProblems(notObject).join("\n")).toContain("is not a plain z.object");
  });
});

describe("toolOutputProblems", () => {
  it("accepts text and image content with plain details", () => {
    expect(toolOutputProblems({ content: "ok", details: { n: 1, list: [1, "a", null] } })).toEqual([]);
    expect(
      toolOutputProblems({
        content: [{ type: "image", mediaType: "image/png", data: "AAAA" }],
        isError: false,
      }),
    ).toEqual([]);
  });

  it("rejects empty content, unknown parts and details that are not plain JSON", () => {
    expect(toolOutputProblems({ content: "" })).toEqual(["content is an empty string"]);
    expect(toolOutputProblems({ content: [] })).toEqual(["content is an empty array"]);
    expect(toolOutputProblems({ content: [{ type: "audio" } as never] })).toEqual([
      'content part of type "audio" is neither text nor image',
    ]);
    expect(toolOutputProblems({ content: "ok", details: { when: new Date(0) } })).toEqual([
      "details changes in a JSON round trip (not plain data)",
    ]);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(toolOutputProblems({ content: "ok", details: cycle })[0]).toContain(
      "cannot be serialized as JSON",
    );
  });
});

describe("invalidCalls", () => {
  it("derives malformed, non-object, unknown-field, missing and wrong-type calls from the schema", () => {
    const calls = invalidCalls(good, { path: "a.txt" });
    expect(calls.map((call) => call.why)).toEqual([
      "malformed JSON",
      "an array instead of an object",
      "an unknown extra field",
      'required field "path" missing',
      'field "path" of the wrong type',
      'field "poll_ms" of the wrong type',
    ]);
    expect(JSON.parse(calls[3]?.arguments ?? "")).toEqual({});
  });
});

describe("settlesWithin", () => {
  it("tells a hang from a settled promise", async () => {
    expect(await settlesWithin(new Promise(() => {}), 20)).toBe(false);
    expect(await settlesWithin(Promise.reject(new Error("x")), 1_000)).toBe(true);
  });
});
