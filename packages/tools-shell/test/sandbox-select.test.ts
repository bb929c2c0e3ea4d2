import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BridleError } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapRunner, LocalRunner, selectRunner } from "../src/index.js";

// The sandbox is on wherever it can run; where it cannot, the application gets the local runner and one
// warning naming what is unprotected. A bwrap that is installed but cannot make namespaces (the usual
// failure on hardened hosts) is simulated by a script that answers --version and fails otherwise.
const real = await BubblewrapRunner.probe();
let dir: string;
let cleanup: () => Promise<void>;
let broken: string;
beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-select-"));
  broken = join(dir, "bwrap");
  await writeFile(
    broken,
    [
      "#!/bin/sh",
      `echo called > ${JSON.stringify(join(dir, "called"))}`,
      'if [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi',
      'echo "bwrap: setting up uid map: Permission denied" >&2',
      "exit 1",
    ].join("\n"),
  );
  await chmod(broken, 0o755);
});
afterAll(() => cleanup());

describe("selectRunner", () => {
  it('"auto" falls back to the local runner with a warning that names the cause and what is unprotected', async () => {
    const choice = await selectRunner("auto", { bwrap: broken });
    expect(choice.runner).toBeInstanceOf(LocalRunner);
    expect(choice.warning).toMatch(/Permission denied/);
    expect(choice.warning).toMatch(/home folder/);
    expect(choice.warning).toMatch(/Unix sockets/);
    expect(choice.warning).toMatch(/network/);
    const isolated = (await (choice.runner as LocalRunner).probe()).available;
    expect(/other processes' environments/.test(choice.warning ?? "")).toBe(!isolated);
  });

  it('"auto" says when bwrap is not there at all, and "bwrap" refuses with the same cause', async () => {
    const missing = join(dir, "no-such-bwrap");
    const choice = await selectRunner("auto", { bwrap: missing });
    expect(choice.runner).toBeInstanceOf(LocalRunner);
    expect(choice.warning).toMatch(/no-such-bwrap is not installed or not runnable \(.*ENOENT/);
    const error = await selectRunner("bwrap", { bwrap: missing }).catch((thrown: unknown) => thrown);
    expect((error as BridleError).code).toBe("invalid_config");
    expect((error as BridleError).message).toMatch(/cannot run here.*ENOENT/s);
  });

  it('"bwrap" refuses to run without the sandbox', async () => {
    const error = await selectRunner("bwrap", { bwrap: broken }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(BridleError);
    expect((error as BridleError).code).toBe("invalid_config");
    expect((error as BridleError).message).toMatch(/cannot run here.*Permission denied/s);
  });

  it('"off" is the local runner, without a warning and without trying bwrap', async () => {
    const { rm } = await import("node:fs/promises");
    await rm(join(dir, "called"), { force: true });
    const choice = await selectRunner("off", { bwrap: broken });
    expect(choice.runner).toBeInstanceOf(LocalRunner);
    expect(choice.warning).toBeUndefined();
    expect(existsSync(join(dir, "called"))).toBe(false);
  });

  it.skipIf(!real.available)(
    `"auto" picks the sandbox where its probe passes${real.available ? "" : ` — SKIPPED: ${real.reason}`}`,
    async () => {
      const choice = await selectRunner("auto");
      expect(choice.runner).toBeInstanceOf(BubblewrapRunner);
      expect(choice.warning).toBeUndefined();
    },
  );
});
