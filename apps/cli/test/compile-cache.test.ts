// The CLI keeps V8's compile cache in the user's Bridle config folder, where the agent cannot write.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-compile-cache-"));
});
afterEach(async () => {
  await cleanup();
});

/** Every file under `root`, as paths relative to it. */
function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
}

describe("the compile cache", () => {
  it("is written to the config folder by a command that loads modules, and not by --version", async () => {
    const env = { XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data") };
    const cache = join(dir, "config", "bridle", "compile-cache");
    const version = await runCli(["--version"], { cwd: dir, env });
    expect(version.code).toBe(0);
    expect(existsSync(cache)).toBe(false);
    const list = await runCli(["sessions", "list"], { cwd: dir, env });
    expect(list.code, list.stderr).toBe(0);
    expect(filesUnder(cache).length).toBeGreaterThan(0);
  });

  it("goes where NODE_COMPILE_CACHE says when it is set", async () => {
    const chosen = join(dir, "chosen-cache");
    const env = {
      XDG_CONFIG_HOME: join(dir, "config"),
      XDG_DATA_HOME: join(dir, "data"),
      NODE_COMPILE_CACHE: chosen,
    };
    const list = await runCli(["sessions", "list"], { cwd: dir, env });
    expect(list.code, list.stderr).toBe(0);
    expect(existsSync(join(dir, "config", "bridle", "compile-cache"))).toBe(false);
    expect(filesUnder(chosen).length).toBeGreaterThan(0);
  });
});
