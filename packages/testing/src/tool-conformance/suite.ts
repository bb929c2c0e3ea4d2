import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type AnyTool, Workspace } from "@bridle/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorkspace } from "../helpers.js";
import { observe, runCalls, settlesWithin } from "./harness-run.js";
import { invalidCalls } from "./invalid-arguments.js";
import { TOOL_NAME_PATTERN, toolDeclarationProblems, toolOutputProblems } from "./static-checks.js";

type Args = Record<string, unknown>;

export interface ToolConformanceOptions {
  /** A fresh tool for each test, so no state leaks between them. */
  readonly create: () => AnyTool | Promise<AnyTool>;
  /**
   * Arguments of a call that succeeds. Gets the test's empty workspace folder: write the files the call
   * needs there (a file to read), or point at a server your test file started.
   */
  readonly validArgs: (workspace: string) => Args | Promise<Args>;
  /**
   * Arguments of a call that keeps running until it is aborted (a server that never answers, a long
   * sleep). Without it, the abort and timeout checks are skipped: say in your tests why none exists.
   */
  readonly slowArgs?: (workspace: string) => Args | Promise<Args>;
  /** More argument objects the tool must refuse as InvalidInput, beside the ones derived from its schema. */
  readonly invalidArgs?: (workspace: string) => readonly Args[] | Promise<readonly Args[]>;
  /**
   * Arguments that only validate once the tool's `prepareArguments` has run (an alias such as
   * `filePath` for `path`): the suite checks the call succeeds through a harness as `validArgs` does.
   * Give it for every tool with aliases, so the spellings models send keep working.
   */
  readonly aliasedArgs?: (workspace: string) => Args | Promise<Args>;
  /** The name convention (default snake_case, 1 to 64 characters). */
  readonly namePattern?: RegExp;
}

/** How long an aborted or timed-out call may take to settle before the suite calls it a hang. */
const HANG_MS = 10_000;

/**
 * The contract every Bridle tool keeps, as a vitest suite: a declaration the model can use (name,
 * description, strict and fully described schema, sane annotations), invalid arguments refused as
 * InvalidInput before the tool runs, well-shaped results, read-only tools that change nothing, abort and
 * timeout that reach the tool. Call it from a test file.
 */
export function describeToolConformance(name: string, options: ToolConformanceOptions): void {
  describe(`Tool conformance: ${name}`, () => {
    let workspace: string;
    let cleanup: () => Promise<void>;
    let tool: AnyTool;

    beforeEach(async () => {
      ({ dir: workspace, cleanup } = await tempWorkspace("bridle-tool-conformance-"));
      tool = await options.create();
    });
    afterEach(async () => {
      await cleanup();
    });

    it("declares a snake_case name, a description, a strict described schema and sane annotations", () => {
      expect(toolDeclarationProblems(tool, options.namePattern ?? TOOL_NAME_PATTERN)).toEqual([]);
    });

    it("refuses invalid arguments with InvalidInput, through a harness, without running", async () => {
      const valid = await options.validArgs(workspace);
      const extra = (await options.invalidArgs?.(workspace)) ?? [];
      const calls = [
        ...invalidCalls(tool, valid),
        ...extra.map((args, i) => ({ why: `invalidArgs[${i}]`, arguments: JSON.stringify(args) })),
      ];
      const observed = observe(tool);
      const { run, results } = await runCalls(
        observed.tool,
        calls.map((call) => call.arguments),
        workspace,
      );
      expect(run.stopReason).toBe("completed");
      expect(observed.executions).toHaveLength(0);
      expect(results).toHaveLength(calls.length);
      results.forEach((result, i) => {
        const why = calls[i]?.why;
        expect({ why, isError: result.isError, kind: result.errorKind }).toEqual({
          why,
          isError: true,
          kind: "InvalidInput",
        });
        // The model gets a bounded explanation, not a dump of the schema or of its own arguments.
        expect(JSON.stringify(result.content).length, why).toBeLessThan(4_000);
      });
    });

    it("answers a valid call with a well-shaped result, directly and through a harness", async () => {
      const args = await options.validArgs(workspace);
      const output = await tool.execute(tool.inputSchema.parse(args), directContext(workspace));
      expect(toolOutputProblems(output)).toEqual([]);
      expect(output.isError ?? false).toBe(false);

      // A fresh tool in a fresh workspace: a tool that is not idempotent (write_file refusing to overwrite
      // a file it did not read) must not see the direct call's effects.
      const second = await tempWorkspace("bridle-tool-conformance-");
      try {
        const freshArgs = await options.validArgs(second.dir);
        const observed = observe(await options.create());
        const { run, results } = await runCalls(observed.tool, [JSON.stringify(freshArgs)], second.dir);
        expect(run.stopReason).toBe("completed");
        expect(observed.executions).toHaveLength(1);
        expect(results[0]?.errorKind).toBeUndefined();
        expect(results[0]?.isError).toBe(false);
      } finally {
        await second.cleanup();
      }
    });

    it.skipIf(!options.aliasedArgs)(
      "accepts the argument spellings its prepareArguments takes, through a harness",
      async () => {
        expect(tool.prepareArguments, "aliasedArgs is given but the tool has no prepareArguments").toBeTypeOf(
          "function",
        );
        const args = await options.aliasedArgs?.(workspace);
        // Otherwise the check proves nothing: the schema alone would take these arguments.
        expect(tool.inputSchema.safeParse(args).success, "aliasedArgs already match the schema").toBe(false);
        const observed = observe(tool);
        const { run, results } = await runCalls(observed.tool, [JSON.stringify(args)], workspace);
        expect(run.stopReason).toBe("completed");
        expect(observed.executions).toHaveLength(1);
        expect(results[0]?.errorKind).toBeUndefined();
        expect(results[0]?.isError).toBe(false);
      },
    );

    it("leaves the workspace unchanged when it says read_only", async (context) => {
      if (!tool.annotations?.read_only) context.skip();
      const args = await options.validArgs(workspace);
      const before = await treeDigest(workspace);
      await tool.execute(tool.inputSchema.parse(args), directContext(workspace));
      expect(await treeDigest(workspace)).toBe(before);
    });

    it("settles when its signal is already aborted", async () => {
      const args = tool.inputSchema.parse(await options.validArgs(workspace));
      const controller = new AbortController();
      controller.abort(new Error("aborted before the call"));
      const running = tool.execute(args, directContext(workspace, controller.signal));
      expect(await settlesWithin(running, HANG_MS)).toBe(true);
    });

    it.skipIf(!options.slowArgs)("stops a running call when the run is aborted", async () => {
      const args = tool.inputSchema.parse(await options.slowArgs?.(workspace));
      const controller = new AbortController();
      const running = tool.execute(args, directContext(workspace, controller.signal));
      // Let the call get going (connect, spawn) before pulling the plug.
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.abort(new Error("run aborted"));
      expect(await settlesWithin(running, HANG_MS)).toBe(true);
    });

    it.skipIf(!options.slowArgs)(
      "turns a call past its timeout into Timeout, and the run goes on",
      async () => {
        const args = await options.slowArgs?.(workspace);
        const observed = observe(tool, { timeoutMs: 300 });
        const { run, results } = await runCalls(observed.tool, [JSON.stringify(args)], workspace);
        expect(run.stopReason).toBe("completed");
        expect(results[0]?.errorKind).toBe("Timeout");
        // The timeout reached the tool through its signal: the abandoned call finishes too.
        expect(observed.executions).toHaveLength(1);
        expect(await settlesWithin(observed.executions[0] as Promise<unknown>, HANG_MS)).toBe(true);
      },
    );
  });
}

function directContext(workspace: string, signal: AbortSignal = new AbortController().signal) {
  return {
    signal,
    workspace: new Workspace(workspace),
    runId: "conformance-run",
    toolCallId: "conformance-call",
    progress: () => {},
  };
}

/** Paths and content hashes of everything under `folder`. */
async function treeDigest(folder: string): Promise<string> {
  const hash = createHash("sha256");
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      hash.update(`${path}\0${entry.isDirectory() ? "d" : entry.isFile() ? "f" : "o"}\0`);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) hash.update(await readFile(path));
    }
  };
  await walk(folder);
  return hash.digest("hex");
}
