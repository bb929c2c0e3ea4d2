import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { BridleError } from "../../src/index.js";
import { readRegularFile } from "../../src/node/index.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-bounded-"));
});
afterEach(() => cleanup());

it("reads a regular file up to the bound, with its real path", async () => {
  await writeFile(join(dir, "a.md"), "12345");
  const file = await readRegularFile(join(dir, "a.md"), 5);
  expect(file.bytes.toString()).toBe("12345");
  expect(file.realPath).toBe(join(dir, "a.md"));
});

it("a file bigger than the bound is refused with file_too_large", async () => {
  await writeFile(join(dir, "big.md"), "x".repeat(6));
  const error = await readRegularFile(join(dir, "big.md"), 5).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BridleError);
  expect(error).toMatchObject({ code: "file_too_large" });
});

it("a FIFO is refused at once (no writer awaited), and so is a directory and a device", async () => {
  execFileSync("mkfifo", [join(dir, "fifo")]);
  await mkdir(join(dir, "folder"));
  for (const path of [join(dir, "fifo"), join(dir, "folder"), "/dev/zero"]) {
    await expect(readRegularFile(path, 1024)).rejects.toMatchObject({
      name: "BridleError",
      code: "not_regular_file",
    });
  }
});

it("a symlink is followed, and the real path it reports is its target's; a missing file is ENOENT", async () => {
  await mkdir(join(dir, "elsewhere"));
  await writeFile(join(dir, "elsewhere", "secret"), "key");
  await symlink(join(dir, "elsewhere", "secret"), join(dir, "AGENTS.md"));
  const file = await readRegularFile(join(dir, "AGENTS.md"), 100);
  expect(file.realPath).toBe(join(dir, "elsewhere", "secret"));
  expect(file.bytes.toString()).toBe("key");
  await expect(readRegularFile(join(dir, "none"), 100)).rejects.toMatchObject({ code: "ENOENT" });
});
