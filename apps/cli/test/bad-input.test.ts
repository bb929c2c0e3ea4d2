import { execFile, execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./cli-harness.js";

let dir: string;
let file: string;
let cleanup: () => Promise<void>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-input-"));
  file = join(dir, "a-file.txt");
  await writeFile(file, "not a folder\n");
  await mkdir(join(dir, "data"));
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
});
afterAll(async () => {
  await cleanup();
});

/** Exactly one line on stderr, naming the problem, with nothing of a stack trace. */
function expectOneLine(stderr: string, pattern: RegExp): void {
  expect(stderr.endsWith("\n"), `stderr ends its line: ${JSON.stringify(stderr)}`).toBe(true);
  expect(stderr.trimEnd().split("\n"), `stderr is one line: ${JSON.stringify(stderr)}`).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at |\.[jt]s:\d+|Error:/m);
  expect(stderr).toMatch(/^bridle: /);
  expect(stderr.trimEnd()).toMatch(pattern);
}

// Every command, with a workspace folder that is not there or is a file: refused before anything runs.
const COMMANDS: readonly (readonly string[])[] = [
  ["run", "fix the bug"],
  [],
  ["sessions", "list"],
  ["tools", "list"],
  ["policy", "check", "ls"],
  ["demo"],
];

describe("--cwd that is not a folder is a usage error for every command", () => {
  it.each(COMMANDS.map((args) => [args.join(" ") || "(interactive)", args] as const))(
    "bridle %s --cwd MISSING",
    async (_name, args) => {
      const run = await runCli([...args, "--cwd", join(dir, "no-such-folder")], {
        cwd: dir,
        env: { ...env, OPENAI_API_KEY: "test-key" },
      });
      expect(run.code).toBe(2);
      expectOneLine(run.stderr, /--cwd .*no-such-folder: does not exist/);
      expect(run.stdout).toBe("");
    },
  );

  it.each(COMMANDS.map((args) => [args.join(" ") || "(interactive)", args] as const))(
    "bridle %s --cwd FILE",
    async (_name, args) => {
      const run = await runCli([...args, "--cwd", file], {
        cwd: dir,
        env: { ...env, OPENAI_API_KEY: "test-key" },
      });
      expect(run.code).toBe(2);
      expectOneLine(run.stderr, /--cwd .*a-file\.txt: not a folder/);
    },
  );
});

describe("bad arguments get one short line and exit 2", () => {
  const cases: readonly (readonly [string, readonly string[], RegExp])[] = [
    [
      "an unknown option",
      ["run", "x", "--frobnicate"],
      /^bridle: unknown option --frobnicate \(see bridle --help\)$/,
    ],
    ["an unknown short option", ["-Q"], /^bridle: unknown option -Q /],
    ["an option without its value", ["run", "x", "--max-turns"], /--max-turns needs a value/],
    ["a value given to a switch", ["run", "x", "--yes=no"], /--yes.* takes no value/],
    ["an unknown command", ["frobnicate"], /unknown command "frobnicate"/],
    ["run without a prompt", ["run"], /bridle run needs a prompt/],
    ["--keep outside the demo", ["run", "x", "--keep"], /--keep is an option of bridle demo/],
    [
      "a value off a flag's list, in the flag's words",
      ["tools", "list", "--store", "mongodb"],
      /^bridle: --store mongodb: must be one of jsonl, sqlite, postgres$/,
    ],
    [
      "a number flag given a word",
      ["run", "x", "--max-turns", "abc"],
      /^bridle: --max-turns abc: not a number$/,
    ],
    [
      "a fraction where a count goes",
      ["run", "x", "--max-turns", "1.5"],
      /^bridle: --max-turns 1\.5: not a whole number$/,
    ],
    [
      "a number under a flag's least",
      ["run", "x", "--context-window", "10"],
      /^bridle: --context-window 10: must be at least 1000$/,
    ],
    ["a malformed --base-url", ["run", "x", "--base-url", "not a url"], /^bridle: --base-url not a url: /],
    ["a config file that is not there", ["tools", "list", "--config", "/no/such/bridle.json"], /config/],
    ["policy check without a command", ["policy", "check"], /usage: bridle policy check/],
  ];
  it.each(cases)("%s", async (_name, args, pattern) => {
    const run = await runCli(args, { cwd: dir, env: { ...env, OPENAI_API_KEY: "test-key" } });
    expect(run.code).toBe(2);
    expectOneLine(run.stderr, pattern);
  });
});

describe("API keys", () => {
  it("with no key at all, says which variables to set", async () => {
    const run = await runCli(["run", "hello"], { cwd: dir, env });
    expect(run.code).toBe(2);
    expectOneLine(run.stderr, /no API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY/);
  });

  it("with only ANTHROPIC_API_KEY and an OpenAI model named, says to pass --provider anthropic", async () => {
    const run = await runCli(["run", "hello", "--model", "gpt-5"], {
      cwd: dir,
      env: { ...env, ANTHROPIC_API_KEY: "test-key" },
    });
    expect(run.code).toBe(2);
    expectOneLine(run.stderr, /pass --provider anthropic/);
  });

  it("with --provider anthropic and only OPENAI_API_KEY, says to pass --provider openai", async () => {
    const run = await runCli(["run", "hello", "--provider", "anthropic"], {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "test-key" },
    });
    expect(run.code).toBe(2);
    expectOneLine(run.stderr, /needs ANTHROPIC_API_KEY.*pass --provider openai/);
  });
});

describe("failures from below main are one line too", () => {
  it("a core BridleError (an invalid session id) prints its message and code", async () => {
    const run = await runCli(["sessions", "show", "../../etc"], { cwd: dir, env });
    expect(run.code).toBe(1);
    expectOneLine(run.stderr, /invalid session id .*\(invalid_argument\)$/);
  });

  it("a system error (the data folder is a file) names the path and the reason", async () => {
    const run = await runCli(["sessions", "list"], { cwd: dir, env: { ...env, XDG_DATA_HOME: file } });
    expect(run.code).toBe(1);
    expectOneLine(run.stderr, /ENOTDIR.*a-file\.txt/);
  });
});

// An older Node on this machine (Debian's, say) shows what a user with one sees; CI images carry one.
const olderNode = findOlderNode();
describe.skipIf(!olderNode.path)(
  `on Node < 22${olderNode.path ? "" : ` (skipped: ${olderNode.reason})`}`,
  () => {
    it("says which Node is needed, in one line", async () => {
      const stderr = await new Promise<string>((resolve) => {
        execFile(olderNode.path as string, [CLI, "tools", "list"], { cwd: dir, env }, (error, _out, err) => {
          expect(error?.code).toBe(1);
          resolve(err);
        });
      });
      expectOneLine(stderr, /needs Node 22\.15 or newer; this is Node \d+\./);
    });
  },
);

function findOlderNode(): { path?: string; reason: string } {
  const candidates = ["/usr/bin/node", "/usr/local/bin/node"];
  for (const path of candidates) {
    try {
      const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
      if (Number(version.replace(/^v/, "").split(".")[0]) < 22) return { path, reason: "" };
    } catch {
      // Not installed there.
    }
  }
  return { reason: `no Node older than 22 at ${candidates.join(" or ")}` };
}
