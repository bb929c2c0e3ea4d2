import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShellTools, type ShellTools } from "../src/index.js";
import { call } from "./helpers.js";

// The policy's own judgement of what a command writes is proved in @bridle/shell-policy's writes.test.ts;
// here, that it reaches the bash tool's details, and what the tool says without a policy.

let dir: string;
let cleanup: () => Promise<void>;
let shell: ShellTools;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-bash-writes-"));
  await mkdir(join(dir, "src"));
  await writeFile(join(dir, "a.txt"), "alpha\nbeta\n");
  await writeFile(join(dir, "src", "b.txt"), "gamma\n");
  shell = await createShellTools({ killGraceMs: 300 });
});
afterAll(async () => {
  await shell.stopAll();
  await cleanup();
});

describe("details.writes on the bash tool", () => {
  it("reaches the bash tool's details, and a command that wrote never says none", async () => {
    const read = await call(shell.bash, { command: "cat a.txt | wc -l" }, dir);
    expect(read.result.stdout.trim()).toBe("2");
    expect(read.details.writes).toBe("none");
    for (const command of [
      "echo new > out.txt",
      "echo more | tee -a out.txt",
      "sed -i s/alpha/omega/ a.txt",
      "(cd src && cp b.txt c.txt)",
    ]) {
      const wrote = await call(shell.bash, { command }, dir);
      expect(wrote.result.exit_code, command).toBe(0);
      expect(wrote.details.writes, command).toBe("possible");
    }
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("new\nmore\n");
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toContain("omega");
    expect(existsSync(join(dir, "src", "c.txt"))).toBe(true);
  });

  it("says possible when the shell tools run without a policy", async () => {
    const open = await createShellTools({ policy: false });
    try {
      const { details } = await call(open.bash, { command: "cat a.txt" }, dir);
      expect(details.writes).toBe("possible");
    } finally {
      await open.stopAll();
    }
  });
});
