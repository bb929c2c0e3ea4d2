import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isSecretPath, ToolFailure, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let base: string;
let cleanup: () => Promise<void>;
let ws: Workspace;
let root: string;

beforeEach(async () => {
  ({ dir: base, cleanup } = await tempWorkspace());
  root = join(base, "ws");
  await mkdir(join(root, "src"), { recursive: true });
  await writeFile(join(root, "src", "a.ts"), "a");
  await mkdir(join(base, "ws-evil"));
  await writeFile(join(base, "ws-evil", "x.ts"), "evil");
  await writeFile(join(base, "outside.txt"), "outside");
  ws = new Workspace(root);
});
afterEach(() => cleanup());

async function failure(promise: Promise<unknown>): Promise<ToolFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolFailure) return error;
    throw error;
  }
  throw new Error("expected a ToolFailure");
}

describe("resolveExisting", () => {
  it("resolves relative and absolute paths inside the workspace", async () => {
    expect(await ws.resolveExisting("src/a.ts")).toMatch(/ws\/src\/a\.ts$/);
    expect(await ws.resolveExisting(join(root, "src"))).toMatch(/ws\/src$/);
    expect(await ws.resolveExisting(".")).toMatch(/ws$/);
  });

  it("denies .. escapes, absolute paths outside and sibling-prefix folders", async () => {
    expect((await failure(ws.resolveExisting("../outside.txt"))).kind).toBe("Denied");
    expect((await failure(ws.resolveExisting(join(base, "outside.txt")))).kind).toBe("Denied");
    expect((await failure(ws.resolveExisting("../ws-evil/x.ts"))).kind).toBe("Denied");
    expect((await failure(ws.resolveExisting(join(base, "ws-evil")))).kind).toBe("Denied");
  });

  it("follows symlinks and denies one that points out", async () => {
    await symlink(join(base, "outside.txt"), join(root, "link-out"));
    await symlink(join(root, "src", "a.ts"), join(root, "link-in"));
    await symlink(base, join(root, "src", "up"));
    expect((await failure(ws.resolveExisting("link-out"))).kind).toBe("Denied");
    expect((await failure(ws.resolveExisting("src/up/outside.txt"))).kind).toBe("Denied");
    expect(await ws.resolveExisting("link-in")).toMatch(/ws\/src\/a\.ts$/);
  });

  it("reports a missing file inside as NotFound, outside as Denied", async () => {
    expect((await failure(ws.resolveExisting("src/missing.ts"))).kind).toBe("NotFound");
    expect((await failure(ws.resolveExisting("../missing.ts"))).kind).toBe("Denied");
  });

  it("rejects NUL bytes and empty paths", async () => {
    expect((await failure(ws.resolveExisting("src/a.ts\0.png"))).kind).toBe("InvalidInput");
    expect((await failure(ws.resolveExisting(""))).kind).toBe("InvalidInput");
  });

  it("denies secret-like files unless the workspace allows them", async () => {
    await writeFile(join(root, ".env"), "TOKEN=1");
    expect((await failure(ws.resolveExisting(".env"))).kind).toBe("Denied");
    const open = new Workspace({ roots: [root], allowSecrets: true });
    expect(await open.resolveExisting(".env")).toMatch(/\.env$/);
  });

  it("accepts any of several roots", async () => {
    const multi = new Workspace({ roots: [root, join(base, "ws-evil")] });
    expect(await multi.resolveExisting(join(base, "ws-evil", "x.ts"))).toMatch(/ws-evil\/x\.ts$/);
  });
});

describe("display", () => {
  it("shows real paths relative to a root reached through a symlink", async () => {
    await symlink(root, join(base, "ws-link"));
    const linked = new Workspace(join(base, "ws-link"));
    const real = await linked.resolveExisting("src/a.ts");
    expect(linked.display(real)).toBe("src/a.ts");
    expect(linked.display(join(base, "ws-link", "src"))).toBe("src");
    expect(linked.display(join(base, "outside.txt"))).toBe(join(base, "outside.txt"));
  });
});

describe("resolveForWrite", () => {
  it("resolves a new file whose parent exists inside", async () => {
    expect(await ws.resolveForWrite("src/new.ts")).toMatch(/ws\/src\/new\.ts$/);
  });

  it("creates missing parents only when asked, and only inside", async () => {
    expect((await failure(ws.resolveForWrite("deep/er/new.ts"))).kind).toBe("NotFound");
    expect(await ws.resolveForWrite("deep/er/new.ts", { createParents: true })).toMatch(
      /ws\/deep\/er\/new\.ts$/,
    );
    expect((await failure(ws.resolveForWrite("../made/new.ts", { createParents: true }))).kind).toBe(
      "Denied",
    );
  });

  it("denies writing through a symlinked folder or file that points out", async () => {
    await symlink(base, join(root, "up"));
    await symlink(join(base, "outside.txt"), join(root, "out.txt"));
    expect((await failure(ws.resolveForWrite("up/new.ts"))).kind).toBe("Denied");
    expect((await failure(ws.resolveForWrite("out.txt"))).kind).toBe("Denied");
  });

  it("refuses a directory and secret-like targets", async () => {
    expect((await failure(ws.resolveForWrite("src"))).kind).toBe("InvalidInput");
    expect((await failure(ws.resolveForWrite("id_rsa"))).kind).toBe("Denied");
  });
});

describe("isSecretPath", () => {
  it.each([
    [".env", true],
    [".env.local", true],
    ["config/prod.env", true],
    [".env.example", false],
    ["server.pem", true],
    ["keys/deploy.key", true],
    ["home/.ssh/config", true],
    [".aws/credentials", true],
    ["id_ed25519", true],
    [".npmrc", true],
    ["src/environment.ts", false],
    ["README.md", false],
    ["keyboard.ts", false],
  ])("%s → %s", (path, secret) => {
    expect(isSecretPath(path)).toBe(secret);
  });
});
