// A resumed interactive session comes back in the mode its last turn was in, as a person sees it in the
// prompt: planning stays planning, an accepted plan resumes in the working mode, and a mode picked with the
// mode key is the one -c comes back in.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const terminal = new TmuxCli("bridle-resume-mode");
let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-resume-mode-tty-"));
  await writeFile(join(dir, "notes.txt"), "hello\n");
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

const args = (url: string, ...more: string[]) => [
  "--provider",
  "openai",
  "--model",
  "m",
  "--profile",
  "generic",
  "--edit-format",
  "replace",
  "--no-coding",
  "--sandbox",
  "off",
  "--base-url",
  openaiResponsesFormat.baseUrl(url),
  "--cwd",
  dir,
  ...more,
];
const env = () => ({
  OPENAI_API_KEY: "k",
  XDG_DATA_HOME: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
});

/** Leaves the session and waits until the process said goodbye. */
async function leave(): Promise<void> {
  terminal.keys("/exit", "Enter");
  await terminal.waitFor(/^session: \S+$/m, 20_000);
  terminal.kill();
}

describe("-c in a terminal", () => {
  it("comes back planning, then in the working mode once the plan was accepted, then in the mode the key chose", async () => {
    server = await fakeOpenAI([
      { text: "Thinking about it." },
      { toolCalls: [call("p1", "exit_plan_mode", { plan: "1. Write out.txt." })] },
      { toolCalls: [call("w1", "write_file", { path: "out.txt", content: "planned\n" })] },
      { text: "Wrote out.txt." },
      { text: "Asked mode noted." },
    ]);
    terminal.start(["--plan", ...args(server.url)], env());
    await terminal.waitFor(/^plan › $/m);
    terminal.keys("plan the change", "Enter");
    await terminal.waitFor(/Thinking about it\.[\s\S]*^plan › $/m);
    await leave();

    // Still planning: the prompt says so, and one line says why.
    terminal.start(["-c", ...args(server.url)], env());
    const planning = await terminal.waitFor(/^plan › $/m);
    expect(planning).toContain("bridle: resumed in plan mode, as the session's last turn was");
    terminal.keys("go on", "Enter");
    await terminal.waitFor(/Answer \(a number, ↑\/↓, or type; Enter\): $/m);
    terminal.keys("1", "Enter");
    await terminal.waitFor(/Wrote out\.txt\.[\s\S]*^workspace › $/m);
    expect(await readFile(join(dir, "out.txt"), "utf8")).toBe("planned\n");
    await leave();

    // The plan was accepted in that turn: the session comes back working, with nothing to say.
    terminal.start(["-c", ...args(server.url)], env());
    const working = await terminal.waitFor(/^workspace › $/m);
    expect(working).not.toContain("resumed in");
    terminal.keys("BTab");
    await terminal.waitFor(/^ask › $/m);
    terminal.keys("note the mode", "Enter");
    await terminal.waitFor(/Asked mode noted\.[\s\S]*^ask › $/m);
    await leave();

    terminal.start(["-c", ...args(server.url)], env());
    const asking = await terminal.waitFor(/^ask › $/m);
    expect(asking).toContain("bridle: resumed in ask mode");
    expect(asking).toMatch(/^bridle: permission mode ask/m);
  }, 240_000);
});

describe("bridle run -c after bridle run --plan at a terminal", () => {
  it("comes back in the working mode once the plan was accepted in that run", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("p1", "exit_plan_mode", { plan: "1. Write out.txt." })] },
      { toolCalls: [call("w1", "write_file", { path: "out.txt", content: "planned\n" })] },
      { text: "Wrote out.txt." },
      { toolCalls: [call("w2", "write_file", { path: "more.txt", content: "more\n" })] },
      { text: "Wrote more.txt." },
    ]);
    terminal.start(["run", "plan the change", "--plan", ...args(server.url)], env());
    await terminal.waitFor(/Answer \(a number, ↑\/↓, or type; Enter\): $/m);
    terminal.keys("1", "Enter");
    await terminal.waitFor(/^session: \S+$/m);
    expect(await readFile(join(dir, "out.txt"), "utf8")).toBe("planned\n");
    terminal.kill();

    terminal.start(["run", "-c", "write more", ...args(server.url)], env());
    const working = await terminal.waitFor(/^session: \S+$/m);
    expect(working).not.toContain("resumed in");
    expect(working).toMatch(/^bridle: permission mode workspace/m);
    expect(await readFile(join(dir, "more.txt"), "utf8")).toBe("more\n");
  }, 240_000);
});
