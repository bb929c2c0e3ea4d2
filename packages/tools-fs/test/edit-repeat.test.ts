import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ToolCallEnv, ToolFailure } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { createFsTools } from "../src/index.js";
import { fixture } from "./helpers.js";

// A durable run re-runs a call that was in flight when its process died, with `repeated` set, in a new
// process: a new toolkit that never saw the run's reads.
describe("edit_file repeated after its process stopped", () => {
  const repeatedCall = (fx: Awaited<ReturnType<typeof fixture>>): ToolCallEnv => ({
    signal: new AbortController().signal,
    workspace: fx.workspace,
    runId: "run-1",
    toolCallId: "call_7",
    repeated: true,
    progress: () => {},
  });

  it("finds the edit already landed and does nothing again", async () => {
    const fx = await fixture();
    await fx.files({ "a.ts": "const a = 1;\n" });
    await fx.call(fx.kit.readFile, { path: "a.ts" });
    const args = { path: "a.ts", old_string: "const a = 1;", new_string: "const a = 2;" };
    await fx.call(fx.kit.editFile, args);
    const fresh = createFsTools();
    const out = await fresh.editFile.execute(args, repeatedCall(fx));
    expect(String(out.content)).toContain("already done");
    expect(await readFile(join(fx.dir, "a.ts"), "utf8")).toBe("const a = 2;\n");
  });

  it("makes an edit that had not landed", async () => {
    const fx = await fixture();
    await fx.files({ "a.ts": "const a = 1;\n" });
    await fx.call(fx.kit.readFile, { path: "a.ts" });
    const out = await fx.kit.editFile.execute(
      { path: "a.ts", old_string: "const a = 1;", new_string: "const a = 3;" },
      repeatedCall(fx),
    );
    expect(String(out.content)).toContain("Edited a.ts: 1 replacement");
    expect(await readFile(join(fx.dir, "a.ts"), "utf8")).toBe("const a = 3;\n");
  });

  it("refuses when it cannot tell (new_string contains old_string) and changes nothing", async () => {
    const fx = await fixture();
    await fx.files({ "a.ts": "x();\n" });
    await fx.call(fx.kit.readFile, { path: "a.ts" });
    await expect(
      fx.kit.editFile.execute(
        { path: "a.ts", old_string: "x();", new_string: "x();\ny();" },
        repeatedCall(fx),
      ),
    ).rejects.toBeInstanceOf(ToolFailure);
    expect(await readFile(join(fx.dir, "a.ts"), "utf8")).toBe("x();\n");
    expect(fx.kit.editFile.annotations?.repeat_safe).toBe(true);
  });
});

// write_file is idempotent: a durable run re-runs it after a crash in a process that never saw the read.
describe("write_file repeated after its process stopped", () => {
  const repeatedCall = (fx: Awaited<ReturnType<typeof fixture>>, repeated: boolean): ToolCallEnv => ({
    signal: new AbortController().signal,
    workspace: fx.workspace,
    runId: "run-1",
    toolCallId: "call_8",
    ...(repeated ? { repeated: true } : {}),
    progress: () => {},
  });

  it("recognises its own completed write, of a new file and of a file it overwrote", async () => {
    const fx = await fixture();
    await fx.files({ "a.ts": "old\r\n" });
    await fx.call(fx.kit.readFile, { path: "a.ts" });
    await fx.call(fx.kit.writeFile, { path: "a.ts", content: "new\n" });
    await fx.call(fx.kit.writeFile, { path: "b.ts", content: "made\n" });
    const fresh = createFsTools();
    for (const [path, content, stored] of [
      ["a.ts", "new\n", "new\r\n"],
      ["b.ts", "made\n", "made\n"],
    ] as const) {
      const out = await fresh.writeFile.execute({ path, content }, repeatedCall(fx, true));
      expect(String(out.content)).toMatch(/^Overwrote/);
      expect(await readFile(join(fx.dir, path), "utf8")).toBe(stored);
    }
  });

  it("still refuses a file that holds something else, and any unread file when not repeating", async () => {
    const fx = await fixture();
    await fx.files({ "a.ts": "someone else's\n" });
    const fresh = createFsTools();
    await expect(
      fresh.writeFile.execute({ path: "a.ts", content: "mine\n" }, repeatedCall(fx, true)),
    ).rejects.toMatchObject({ kind: "Conflict" });
    await expect(
      fresh.writeFile.execute({ path: "a.ts", content: "someone else's\n" }, repeatedCall(fx, false)),
    ).rejects.toMatchObject({ kind: "Conflict" });
    expect(await readFile(join(fx.dir, "a.ts"), "utf8")).toBe("someone else's\n");
  });
});
