import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapRunner, sandboxPolicy } from "../src/index.js";

// A sandbox running as root still opens root's 0600 files (owning a file needs no capability), so the
// runner masks them. Their list is made in the background, from the probe on: a command issued before
// it is ready must wait for it, never run with part of it.
const probe = await BubblewrapRunner.probe();
const IS_ROOT = process.getuid?.() === 0;
const why = !IS_ROOT ? " — SKIPPED: not root" : probe.available ? "" : ` — SKIPPED: ${probe.reason}`;

describe.skipIf(!IS_ROOT || !probe.available)(`root-only files in the sandbox${why}`, () => {
  let dir: string;
  let tree: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-root-only-"));
    tree = join(dir, "..", `${dir.split("/").pop()}-tree`);
    mkdirSync(join(tree, "a", "b"), { recursive: true });
    mkdirSync(join(tree, "keys"), { recursive: true });
    writeFileSync(join(tree, "a", "public.txt"), "PUBLIC\n", { mode: 0o644 });
    writeFileSync(join(tree, "a", "b", "secret.txt"), "ROOT-ONLY-FILE\n", { mode: 0o600 });
    chmodSync(join(tree, "a", "b", "secret.txt"), 0o600);
    writeFileSync(join(tree, "keys", "notes.txt"), "ROOT-ONLY-FOLDER\n", { mode: 0o644 });
    chmodSync(join(tree, "keys"), 0o700);
    // Filler, so the walk has work to do after the command is issued.
    for (let i = 0; i < 2_000; i++) writeFileSync(join(tree, "a", `f${i}.txt`), "x\n");
  });
  afterAll(async () => {
    const { rm } = await import("node:fs/promises");
    await rm(tree, { recursive: true, force: true });
    await cleanup();
  });

  const command = (runner: BubblewrapRunner) => {
    let stdout = "";
    const started = runner.start(
      {
        command: `cat ${tree}/a/public.txt ${tree}/a/b/secret.txt ${tree}/keys/notes.txt; ls -A ${tree}/keys`,
        cwd: dir,
        writableRoots: [dir],
        timeoutMs: 60_000,
        onOutput: (stream, chunk) => {
          if (stream === "stdout") stdout += Buffer.from(chunk).toString("utf8");
        },
      },
      sandboxPolicy(),
    );
    return { started, stdout: () => stdout };
  };

  it("masks every root-only file and folder for a command issued before their list was ready", async () => {
    // The host sees them: what the sandbox hides here is hidden by the masks.
    expect(readFileSync(join(tree, "a", "b", "secret.txt"), "utf8")).toBe("ROOT-ONLY-FILE\n");
    const runner = new BubblewrapRunner({ readable: [tree], rootOnlyTrees: [tree] });
    expect((await runner.probe()).available).toBe(true);
    // The probe has just started the walk; its answer is an event that cannot have been delivered
    // before this synchronous call.
    const { started, stdout } = command(runner);
    const exit = await (await started).done;
    expect(exit.exitCode).toBe(0);
    expect(stdout()).toBe("PUBLIC\n");
  });

  it("a runner told to mask nothing there shows them: the masks are what hide them", async () => {
    const runner = new BubblewrapRunner({ readable: [tree], rootOnlyTrees: [] });
    const { started, stdout } = command(runner);
    await (await started).done;
    expect(stdout()).toBe("PUBLIC\nROOT-ONLY-FILE\nROOT-ONLY-FOLDER\nnotes.txt\n");
  });
});
