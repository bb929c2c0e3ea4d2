// Images as a person gives them: `--image FILE` (relative to where they typed it) and an image path in the
// prompt, sent as image input to a model that takes images; refused, with a line saying why, for a model
// that does not, for a file outside the workspace or secret, for a file that is not an image by its bytes,
// and for one over the size limit.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, runCli } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

// The smallest files each format's signature makes: what is sent is judged by these bytes, not the names.
const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
const GIF = Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1");

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-images-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "shots"), { recursive: true });
  await writeFile(join(repo, "shots", "error.png"), PNG);
  await writeFile(join(repo, "shots", "my shot.gif"), GIF);
  await writeFile(join(repo, "shots", "fake.png"), "not an image at all\n");
  await writeFile(join(repo, "shots", "huge.png"), Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024)]));
  await writeFile(join(dir, "outside.png"), PNG);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

function env(): NodeJS.ProcessEnv {
  return { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
}

function args(prompt: string, model: string, ...more: string[]): string[] {
  const url = openaiResponsesFormat.baseUrl(server?.url ?? "http://127.0.0.1:9");
  return ["run", prompt, "--model", model, "--base-url", url, "--no-coding", "--cwd", repo, ...more];
}

/** The user message's parts of the first request, as the Responses API was sent them. */
function userParts(): { type: string; text?: string; image_url?: string }[] {
  const body = server?.requests[0]?.body as { input?: { role?: string; content?: unknown }[] } | undefined;
  const user = (body?.input ?? []).find((item) => item.role === "user");
  return user?.content as { type: string; text?: string; image_url?: string }[];
}

it("sends --image files and pasted image paths as image input to a model that takes images", async () => {
  server = await fakeOpenAI([{ text: "A stack trace." }]);
  // Typed in the shots folder: --image error.png is that folder's file, not the workspace root's.
  const prompt = "what does this show? also '/dev/null/x.png' and shots/my\\ shot.gif, and logo.png";
  const run = await runCli(args(prompt, "gpt-4.1-mini", "--image", "error.png"), {
    cwd: join(repo, "shots"),
    env: env(),
  });
  expect(run.code).toBe(0);
  expect(run.stderr.split("\n").filter((line) => line.includes("image"))).toEqual([
    `bridle: attached image shots/error.png (image/png, ${PNG.length} bytes)`,
    `bridle: attached image shots/my shot.gif (image/gif, ${GIF.length} bytes)`,
  ]);
  expect(userParts()).toEqual([
    { type: "input_text", text: prompt },
    { type: "input_text", text: '<image path="shots/error.png">' },
    { type: "input_image", image_url: `data:image/png;base64,${PNG.toString("base64")}`, detail: "auto" },
    { type: "input_text", text: '<image path="shots/my shot.gif">' },
    { type: "input_image", image_url: `data:image/gif;base64,${GIF.toString("base64")}`, detail: "auto" },
  ]);
});

it("refuses images a model does not take: --image is a usage error, a pasted path stays text", async () => {
  server = await fakeOpenAI([{ text: "ok" }]);
  const given = await runCli(args("look", "o3-mini", "--image", "shots/error.png"), {
    cwd: repo,
    env: env(),
  });
  expect(given.code).toBe(2);
  expect(given.stderr).toContain(
    "bridle: --image shots/error.png: not sent: openai/o3-mini does not take images",
  );
  expect(server.requests).toHaveLength(0);

  // A model bridle's table does not know: whether it takes images is unknown, and the line says where to say so.
  const unknown = await runCli(args("look at shots/error.png", "my-local-model"), { cwd: repo, env: env() });
  expect(unknown.code).toBe(0);
  expect(unknown.stderr).toContain(
    'bridle: shots/error.png not attached: openai/my-local-model is not in bridle\'s model table, so whether it takes images is unknown (if it does, add it under "models" in your config with "capabilities": {"images": true})',
  );
  expect(userParts()).toEqual([{ type: "input_text", text: "look at shots/error.png" }]);
});

it("refuses files outside the workspace, secrets, files that are not images and files over the limit", async () => {
  server = await fakeOpenAI([{ text: "ok" }]);
  await mkdir(join(repo, ".ssh"));
  await writeFile(join(repo, ".ssh", "key.png"), PNG);
  const outside = await runCli(args("look", "gpt-4.1-mini", "--image", "../outside.png"), {
    cwd: repo,
    env: env(),
  });
  expect(outside.code).toBe(2);
  expect(outside.stderr).toMatch(
    /^bridle: --image \.\.\/outside\.png: .*outside\.png is outside the workspace/m,
  );

  const missing = await runCli(args("look", "gpt-4.1-mini", "--image", "nope.png"), {
    cwd: repo,
    env: env(),
  });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("bridle: --image nope.png: no such file");

  const notImage = await runCli(args("look", "gpt-4.1-mini", "--image", "shots/fake.png"), {
    cwd: repo,
    env: env(),
  });
  expect(notImage.code).toBe(2);
  expect(notImage.stderr).toContain("bridle: --image shots/fake.png: ");
  expect(notImage.stderr).toContain("fake.png is not a PNG, JPEG, GIF or WebP image");
  expect(server.requests).toHaveLength(0);

  const pasted = await runCli(
    args(`see ${join(dir, "outside.png")}, shots/huge.png, .ssh/key.png`, "gpt-4.1-mini"),
    {
      cwd: repo,
      env: env(),
    },
  );
  expect(pasted.code).toBe(0);
  const said = pasted.stderr.split("\n").filter((line) => line.includes("not attached"));
  expect(said).toEqual([
    expect.stringMatching(/outside\.png not attached: .*outside\.png is outside the workspace/),
    "bridle: shots/huge.png not attached: shots/huge.png is larger than 5242880 bytes; send a smaller image",
    "bridle: .ssh/key.png not attached: .ssh/key.png looks like a secret (credentials, keys, .env); access is denied",
  ]);
  expect(JSON.stringify(server.requests[0]?.body)).not.toContain("input_image");
});
