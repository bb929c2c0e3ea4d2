// Images in the interactive session, on a real terminal (tmux): `--image FILE` goes with the first prompt,
// an image path typed in a later prompt goes with that one, each said on its own line.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, queueTurns } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
const GIF = Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1");

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
const terminal = new TmuxCli("bridle-images");

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-images-tty-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "shots"), { recursive: true });
  await writeFile(join(repo, "shots", "error.png"), PNG);
  await writeFile(join(repo, "shots", "later.gif"), GIF);
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

/** The user message's parts of request `index`, as the Responses API was sent them. */
function lastUserParts(index: number): { type: string; text?: string; image_url?: string }[] {
  const body = server?.requests[index]?.body as
    | { input?: { role?: string; content?: unknown }[] }
    | undefined;
  const users = (body?.input ?? []).filter((item) => item.role === "user");
  return users.at(-1)?.content as { type: string; text?: string; image_url?: string }[];
}

it("sends --image with the first prompt and a typed image path with a later one", async () => {
  server = await fakeOpenAI([{ text: "A stack trace." }]);
  const url = openaiResponsesFormat.baseUrl(server.url);
  terminal.start(
    [
      "--provider",
      "openai",
      "--model",
      "gpt-4.1-mini",
      "--base-url",
      url,
      "--no-coding",
      "--cwd",
      repo,
    ].concat(["--image", join(repo, "shots", "error.png")]),
    { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" },
  );
  await terminal.waitFor(/› $/m);
  terminal.keys("what does this show?", "Enter");
  const first = await terminal.waitFor(/A stack trace\.[\s\S]*› $/m);
  expect(first).toContain(`bridle: attached image shots/error.png (image/png, ${PNG.length} bytes)`);
  expect(lastUserParts(0)).toEqual([
    { type: "input_text", text: "what does this show?" },
    { type: "input_text", text: '<image path="shots/error.png">' },
    { type: "input_image", image_url: `data:image/png;base64,${PNG.toString("base64")}`, detail: "auto" },
  ]);

  // The --image went with the first prompt only; a path typed now goes with this one.
  queueTurns(server, [{ text: "A GIF." }]);
  terminal.keys("and shots/later.gif?", "Enter");
  const second = await terminal.waitFor(/A GIF\.[\s\S]*› $/m);
  expect(second).toContain(`bridle: attached image shots/later.gif (image/gif, ${GIF.length} bytes)`);
  expect(lastUserParts(1)).toEqual([
    { type: "input_text", text: "and shots/later.gif?" },
    { type: "input_text", text: '<image path="shots/later.gif">' },
    { type: "input_image", image_url: `data:image/gif;base64,${GIF.toString("base64")}`, detail: "auto" },
  ]);
  terminal.keys("/exit", "Enter");
  await terminal.waitFor(/session: \S+/);
});
