import { execFile } from "node:child_process";
import { chmod, chown, mkdir, readdir, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { askApprover, BridleError, defineTool, Harness, loadOrCreateApprovalSecret } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { bundleChild } from "./helpers.js";

const run = promisify(execFile);
const posix = process.platform !== "win32";
const root = process.getuid?.() === 0;

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-secret-"));
});
afterEach(() => cleanup());

function refusal(fn: () => unknown): BridleError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(BridleError);
    return error as BridleError;
  }
  throw new Error("expected a refusal");
}

describe.skipIf(!posix)("loadOrCreateApprovalSecret", () => {
  it("generates a 256-bit key on first use, in a 0700 folder and a 0600 file, and reads it back", async () => {
    const config = join(dir, "config", "bridle");
    const secret = loadOrCreateApprovalSecret({ dir: config });
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(config)).mode & 0o777).toBe(0o700);
    expect((await stat(join(config, "approval-secret"))).mode & 0o777).toBe(0o600);
    expect(loadOrCreateApprovalSecret({ dir: config })).toBe(secret);
    expect(await readdir(config)).toEqual(["approval-secret"]);
    // Another folder is another key.
    expect(loadOrCreateApprovalSecret({ dir: join(dir, "other") })).not.toBe(secret);
  });

  // Every permission bit for the group or others is a way for another user to read or replace the key.
  const looseModes = [0o640, 0o620, 0o610, 0o604, 0o602, 0o601, 0o644, 0o666, 0o660, 0o777];
  it.each(looseModes.map((mode) => [mode.toString(8), mode]))(
    "refuses a key file of mode %s",
    async (_, mode) => {
      const config = join(dir, "bridle");
      loadOrCreateApprovalSecret({ dir: config });
      await chmod(join(config, "approval-secret"), mode);
      const error = refusal(() => loadOrCreateApprovalSecret({ dir: config }));
      expect(error.code).toBe("approval_secret_insecure");
      expect(error.message).toContain(join(config, "approval-secret"));
      expect(error.message).toMatch(/chmod 600/);
    },
  );

  it("refuses a key file that is a symbolic link, even to a private file", async () => {
    const config = join(dir, "bridle");
    await mkdir(config, { mode: 0o700 });
    await writeFile(join(dir, "elsewhere"), "a".repeat(64), { mode: 0o600 });
    await symlink(join(dir, "elsewhere"), join(config, "approval-secret"));
    const error = refusal(() => loadOrCreateApprovalSecret({ dir: config }));
    expect(error.code).toBe("approval_secret_insecure");
    expect(error.message).toMatch(/symbolic link/);
  });

  it("refuses a folder where the key file should be", async () => {
    const config = join(dir, "bridle");
    await mkdir(join(config, "approval-secret"), { recursive: true });
    expect(refusal(() => loadOrCreateApprovalSecret({ dir: config })).code).toBe("approval_secret_insecure");
  });

  it.skipIf(!root)("refuses a key file another user owns (needs root to chown it)", async () => {
    const config = join(dir, "bridle");
    loadOrCreateApprovalSecret({ dir: config });
    await chown(join(config, "approval-secret"), 65534, 65534);
    const error = refusal(() => loadOrCreateApprovalSecret({ dir: config }));
    expect(error.code).toBe("approval_secret_insecure");
    expect(error.message).toMatch(/owned by uid 65534/);
  });

  it.each([
    ["empty", ""],
    ["short", "hunter2\n"],
    ["whitespace", " \n\t\n"],
    ["too long to be a key", "k".repeat(5000)],
  ])("refuses a key file that is %s", async (_, content) => {
    const config = join(dir, "bridle");
    await mkdir(config, { mode: 0o700 });
    await writeFile(join(config, "approval-secret"), content, { mode: 0o600 });
    const error = refusal(() => loadOrCreateApprovalSecret({ dir: config }));
    expect(error.code).toBe("approval_secret_invalid");
  });

  it("takes a key the user wrote themselves, if it is private and long enough", async () => {
    const config = join(dir, "bridle");
    await mkdir(config, { mode: 0o700 });
    const own = "correct horse battery staple, a long passphrase";
    await writeFile(join(config, "approval-secret"), `${own}\n`, { mode: 0o600 });
    expect(loadOrCreateApprovalSecret({ dir: config })).toBe(own);
  });
});

describe.skipIf(!posix)("the user's secret across processes", () => {
  let child: string;
  let build_: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    build_ = await tempWorkspace("bridle-secret-child-");
    child = join(build_.dir, "secret-child.mjs");
    await bundleChild(fileURLToPath(new URL("./fixtures/secret-child.ts", import.meta.url)), child);
  });
  afterAll(() => build_.cleanup());

  async function secretIn(env: Record<string, string>): Promise<string> {
    const { stdout } = await run(process.execPath, [child], {
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    return stdout;
  }

  it("eight processes starting at once agree on one key, and leave no temporary files", async () => {
    const env = { XDG_CONFIG_HOME: join(dir, "xdg"), HOME: join(dir, "home") };
    const secrets = await Promise.all(Array.from({ length: 8 }, () => secretIn(env)));
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(await readdir(join(dir, "xdg", "bridle"))).toEqual(["approval-secret"]);
  });

  it("lives in $XDG_CONFIG_HOME/bridle, else ~/.config/bridle (a relative XDG_CONFIG_HOME is ignored)", async () => {
    const viaXdg = await secretIn({ XDG_CONFIG_HOME: join(dir, "xdg"), HOME: join(dir, "home") });
    expect(loadOrCreateApprovalSecret({ dir: join(dir, "xdg", "bridle") })).toBe(viaXdg);
    const viaHome = await secretIn({ XDG_CONFIG_HOME: "relative/path", HOME: join(dir, "home") });
    expect(loadOrCreateApprovalSecret({ dir: join(dir, "home", ".config", "bridle") })).toBe(viaHome);
    expect(viaHome).not.toBe(viaXdg);
  });
});

describe.skipIf(!posix)("a harness without approvalSecret", () => {
  const saved = process.env.XDG_CONFIG_HOME;
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
  });

  function setup(log: string[]) {
    const deploy = defineTool({
      name: "deploy",
      description: "deploys a service",
      inputSchema: z.object({ service: z.string() }),
      annotations: { requires_approval: true },
      execute: async ({ service }) => {
        log.push(service);
        return { content: `deployed ${service}` };
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "deploy", id: "c1", arguments: { service: "api" } }] },
      { text: "done" },
    ]);
    return { model, tools: [deploy] };
  }

  it("seals with the user's key, made on the first pause, and another user's harness cannot resume it", async () => {
    process.env.XDG_CONFIG_HOME = join(dir, "alice");
    const log: string[] = [];
    const { model, tools } = setup(log);
    const harness = new Harness({ model, tools, workspace: dir, approver: askApprover });
    const paused = await harness.run({ prompt: "deploy" });
    expect(paused.stopReason).toBe("approval_required");
    expect((await stat(join(dir, "alice", "bridle", "approval-secret"))).mode & 0o777).toBe(0o600);
    expect(paused.resumeEnvelope?.integrity).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);

    process.env.XDG_CONFIG_HOME = join(dir, "mallory");
    const other = new Harness({ model, tools, workspace: dir });
    expect(() => other.resumeApprovals(paused.resumeEnvelope, { c1: { approved: true } })).toThrow(
      expect.objectContaining({ code: "envelope_tampered" }),
    );
    expect(log).toEqual([]);
    // The first harness read its key once: it resumes whatever the environment says now.
    const resumed = await harness.resume(paused.resumeEnvelope, { c1: { approved: true } });
    expect(resumed.stopReason).toBe("completed");
    expect(log).toEqual(["api"]);
  });

  it("with an unsafe key file, a pause ends the run before anything runs, and a resume is refused", async () => {
    process.env.XDG_CONFIG_HOME = join(dir, "xdg");
    loadOrCreateApprovalSecret();
    await chmod(join(dir, "xdg", "bridle", "approval-secret"), 0o644);
    const log: string[] = [];
    const { model, tools } = setup(log);
    const harness = new Harness({ model, tools, workspace: dir, approver: askApprover });
    const result = await harness.run({ prompt: "deploy" });
    expect(result.stopReason).toBe("approval_secret_error");
    expect(result.error?.code).toBe("approval_secret_insecure");
    expect(result.error?.message).toMatch(/cannot seal its resume envelope.*chmod 600/);
    expect(result.resumeEnvelope).toBeUndefined();
    expect(log).toEqual([]);
    expect(() => harness.resumeApprovals({}, {})).toThrow(
      expect.objectContaining({ code: "approval_secret_insecure" }),
    );
  });

  it("refuses an empty approvalSecret at construction", () => {
    const { model, tools } = setup([]);
    expect(() => new Harness({ model, tools, workspace: dir, approvalSecret: "" })).toThrow(
      expect.objectContaining({ code: "invalid_config" }),
    );
  });
});
