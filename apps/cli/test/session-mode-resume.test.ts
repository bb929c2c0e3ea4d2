// A resumed session comes back in the mode its last turn was in: -c and --resume ID restore it, a
// --permission-mode given now wins, and full-access is never restored without being asked for again.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, fakeOpenAI, runCli, toolOutputsSent } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-resume-mode-"));
  repo = join(dir, "repo");
  await mkdir(repo);
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

function run(args: string[]) {
  if (!server) throw new Error("no server");
  return runCli(
    [
      "run",
      ...args,
      "--provider",
      "openai",
      "--model",
      "m",
      "--profile",
      "generic",
      "--base-url",
      openaiResponsesFormat.baseUrl(server.url),
      "--no-coding",
      "--sandbox",
      "off",
    ],
    { cwd: repo, env },
  );
}

const write = (id: string, path: string) =>
  ({ toolCalls: [call(id, "write_file", { path, content: "x\n" })] }) as const;

it("-c and --resume ID come back read-only after a read-only turn; --permission-mode given now wins", async () => {
  server = await fakeOpenAI([
    { text: "Looked." },
    { toolCalls: [call("t1", "bash", { command: "touch one.txt" })] },
    { text: "Could not write." },
    write("w2", "two.txt"),
    { text: "Wrote." },
  ]);
  const first = await run(["look around", "--permission-mode", "read-only"]);
  expect(first.code, first.stderr).toBe(0);
  const id = /session: (\S+)/.exec(first.stderr)?.[1] as string;

  const continued = await run(["-c", "now write one.txt"]);
  expect(continued.code, continued.stderr).toBe(0);
  expect(continued.stderr).toContain(
    "bridle: resumed in read-only mode, as the session's last turn was (--permission-mode or --plan chooses another)",
  );
  expect(continued.stderr).toMatch(/^bridle: permission mode read-only/m);
  expect(existsSync(join(repo, "one.txt"))).toBe(false);
  expect(toolOutputsSent(server).join("\n")).toContain("the session is read-only");

  // Named by id, and told the mode: it works in that one, and says nothing of the old.
  const given = await run(["--resume", id, "write two.txt", "--permission-mode", "workspace", "--yes"]);
  expect(given.code, given.stderr).toBe(0);
  expect(given.stderr).not.toContain("resumed in");
  expect(given.stderr).toMatch(/^bridle: permission mode workspace/m);
  expect(existsSync(join(repo, "two.txt"))).toBe(true);
});

it("a session whose last turn was in workspace mode comes back in it, whatever the config says", async () => {
  server = await fakeOpenAI([{ text: "One." }, write("w1", "made.txt"), { text: "Made." }]);
  await mkdir(join(dir, "config", "bridle"), { recursive: true });
  await writeFile(join(dir, "config", "bridle", "bridle.config.json"), '{"permissionMode":"read-only"}');
  const first = await run(["start", "--permission-mode", "workspace"]);
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toMatch(/^bridle: permission mode workspace/m);
  const id = /session: (\S+)/.exec(first.stderr)?.[1] as string;
  const resumed = await run(["--resume", id, "make the file", "--yes"]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain("bridle: resumed in workspace mode");
  expect(existsSync(join(repo, "made.txt"))).toBe(true);
});

it("never restores full-access without the flag, and says so", async () => {
  server = await fakeOpenAI([{ text: "Done." }, { text: "Again." }]);
  const first = await run(["anything", "--permission-mode", "full-access"]);
  expect(first.code, first.stderr).toBe(0);
  const again = await run(["-c", "more"]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(
    "bridle: the session last ran in full-access mode; it goes on in workspace mode (--permission-mode full-access to go on as it was)",
  );
  expect(again.stderr).toMatch(/^bridle: permission mode workspace/m);
});

it("bridle run -c and --resume ID after a planning turn plan again; --permission-mode given now works", async () => {
  server = await fakeOpenAI([
    { text: "1. Write planned.txt." },
    write("w1", "planned.txt"),
    { text: "Still planning." },
    write("w2", "planned.txt"),
    { text: "Wrote." },
  ]);
  const planning = await run(["plan it", "--plan"]);
  expect(planning.code, planning.stderr).toBe(0);
  const id = /session: (\S+)/.exec(planning.stderr)?.[1] as string;

  // Planning at its last turn: -c plans again, and the write is refused as any plan-mode write is.
  const resumed = await run(["-c", "do it", "--yes"]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(
    "bridle: resumed in plan mode, as the session's last turn was (--permission-mode or --plan chooses another)",
  );
  expect(existsSync(join(repo, "planned.txt"))).toBe(false);
  expect(toolOutputsSent(server).join("\n")).toContain("write_file is not available in plan mode");

  // The -c turn planned too, so the session is still planning; a mode given now is the one it works in.
  const given = await run(["--resume", id, "do it now", "--permission-mode", "workspace", "--yes"]);
  expect(given.code, given.stderr).toBe(0);
  expect(given.stderr).not.toContain("resumed in");
  expect(existsSync(join(repo, "planned.txt"))).toBe(true);
});
