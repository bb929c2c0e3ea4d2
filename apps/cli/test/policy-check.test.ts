import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-policy-"));
});
afterAll(async () => {
  await cleanup();
});

// Scripts branch on the exit code: 0 allow, 1 ask, 2 deny, the same with --json.
describe("bridle policy check exit codes", () => {
  const cases = [
    ["allow", "git status", 0],
    ["ask", "git push origin main", 1],
    ["deny", "ls && rm -rf /", 2],
  ] as const;
  it.each(cases)("%s: %s exits %d", async (decision, command, code) => {
    const human = await runCli(["policy", "check", command, "--cwd", dir], { cwd: dir });
    expect(human.stdout.startsWith(`${decision}: ${command}`)).toBe(true);
    expect(human.code).toBe(code);
    const json = await runCli(["policy", "check", command, "--json", "--cwd", dir], { cwd: dir });
    expect((JSON.parse(json.stdout) as { decision: string }).decision).toBe(decision);
    expect(json.code).toBe(code);
  });

  it("documents them in --help", async () => {
    const help = await runCli(["policy", "--help"], { cwd: dir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("0 allow, 1 ask, 2 deny");
  });
});
