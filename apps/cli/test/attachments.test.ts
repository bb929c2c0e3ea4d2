// `@path` in a prompt, as a person types it: the file's text reaches the model in the user message, marked
// with its path; secrets, protected files, files outside the workspace, binaries and large files are
// refused with a line saying why, and a word that names no file stays a word.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, runCli, userTexts } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-attach-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  await mkdir(join(repo, ".git"));
  await writeFile(join(repo, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(join(repo, ".env"), "API_TOKEN=hunter2\n");
  await writeFile(join(repo, ".git", "config"), "[core]\n\tsshCommand = evil\n");
  await writeFile(join(repo, "big.txt"), "x".repeat(300 * 1024));
  await writeFile(join(repo, "blob.bin"), Buffer.from([1, 2, 0, 3]));
  await writeFile(join(dir, "outside.txt"), "not yours\n");
  await symlink(join(dir, "outside.txt"), join(repo, "link.txt"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

it("attaches the files a prompt names and refuses the ones it may not send", async () => {
  server = await fakeOpenAI([{ text: "Seen." }]);
  const prompt =
    "compare @src/a.ts with @.env, @.git/config, @big.txt, @blob.bin and @link.txt; ask @maintainers, mail a@b.c";
  const run = await runCli(
    [
      "run",
      prompt,
      "--provider",
      "openai",
      "--model",
      "m",
      "--base-url",
      openaiResponsesFormat.baseUrl(server.url),
      "--no-coding",
    ],
    {
      cwd: repo,
      env: { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" },
    },
  );
  expect(run.code).toBe(0);
  const said = run.stderr.split("\n").filter((line) => line.includes("attached"));
  expect(said).toEqual([
    "bridle: attached src/a.ts (20 bytes)",
    "bridle: @.env, not attached: .env looks like a secret (credentials, keys, .env); access is denied",
    expect.stringMatching(
      /^bridle: @\.git\/config, not attached: \.git\/config is protected: git's own folder/,
    ),
    "bridle: @big.txt, not attached: big.txt is larger than 262144 bytes; ask the agent to read the part you need",
    "bridle: @blob.bin not attached: blob.bin is binary; only text files attach",
    expect.stringMatching(/^bridle: @link\.txt; not attached: link\.txt is outside the workspace/),
  ]);
  const [sent] = userTexts(server.requests[0]?.body);
  expect(sent).toBe(`${prompt}\n\n<file path="src/a.ts">\nexport const a = 1;\n</file>`);
  expect(JSON.stringify(server.requests[0]?.body)).not.toContain("hunter2");

  // The session is titled by what was typed, not by the attached text.
  const list = await runCli(["sessions", "list"], {
    cwd: repo,
    env: { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
  });
  expect(list.stdout).toContain(`  ${prompt.slice(0, 80)}\n`);
});
