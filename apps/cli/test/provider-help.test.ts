import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-provider-help-"));
  env = {
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key",
  };
});
afterEach(async () => {
  await cleanup();
});

// The --provider entry of a help text: its first line up to the next option's.
function providerEntry(help: string): string {
  const lines = help.split("\n");
  const start = lines.findIndex((line) => line.trimStart().startsWith("--provider "));
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^\s{2}-/.test(line));
  return [lines[start], ...rest.slice(0, end)].join("\n");
}

// The names the CLI accepts, as it says when given one it does not know.
async function acceptedNames(): Promise<string[]> {
  const refused = await runCli(["run", "hi", "--provider", "no-such-provider"], { cwd: dir, env });
  expect(refused.code).toBe(2);
  const known = /known: ([^)]+)\)/.exec(refused.stderr)?.[1];
  expect(known, refused.stderr).toBeDefined();
  return (known ?? "").split(", ");
}

describe("--provider in the help", () => {
  it("names every provider bridle run accepts, ai-sdk among them", async () => {
    const names = await acceptedNames();
    expect(names).toContain("ai-sdk");
    for (const command of ["run", "acp"]) {
      const help = await runCli([command, "--help"], { cwd: dir, env });
      expect(help.code).toBe(0);
      const entry = providerEntry(help.stdout);
      for (const name of names)
        expect(entry, `bridle ${command} --help`).toMatch(new RegExp(`\\b${name}\\b`));
      expect(entry).toMatch(/"providers"/);
    }
  });
});
