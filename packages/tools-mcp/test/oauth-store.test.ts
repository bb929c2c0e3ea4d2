// OAuth sessions are kept per server, readable by the user alone.
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultOAuthDir, fileOAuthStore } from "../src/index.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("the OAuth token store", () => {
  it("keeps one 0600 file per server and URL, in a 0700 folder, and reads it back", async () => {
    const base = await mkdtemp(join(tmpdir(), "bridle-mcp-oauth-"));
    dirs.push(base);
    const dir = join(base, "mcp-oauth");
    const store = fileOAuthStore(dir);
    expect(store.load("github", "https://a.example/mcp")).toEqual({});
    store.save("github", "https://a.example/mcp", { tokens: { access_token: "t1", token_type: "Bearer" } });
    store.save("github", "https://b.example/mcp", { tokens: { access_token: "t2", token_type: "Bearer" } });
    store.save("../evil", "https://a.example/mcp", { codeVerifier: "v" });
    expect(store.load("github", "https://a.example/mcp").tokens?.access_token).toBe("t1");
    expect(store.load("github", "https://b.example/mcp").tokens?.access_token).toBe("t2");
    const files = await readdir(dir);
    expect(files).toHaveLength(3);
    expect(files.every((name) => /^[A-Za-z0-9_-]+-[0-9a-f]{16}\.json$/.test(name))).toBe(true);
    for (const name of files) expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it("lives in the user's config folder", () => {
    expect(defaultOAuthDir({ XDG_CONFIG_HOME: "/home/u/.cfg" })).toBe("/home/u/.cfg/bridle/mcp-oauth");
    expect(defaultOAuthDir({ XDG_CONFIG_HOME: "relative" })).toMatch(/\/\.config\/bridle\/mcp-oauth$/);
  });
});
