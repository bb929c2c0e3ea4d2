import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { handOffSecrets, isSecretName } from "../src/trust/secret-handoff.js";

// The wipe and the hand-over are exercised end to end by sandbox-secrets.test.ts (the real CLI, keys set);
// here, the paths a re-execution cannot show: an old Node, and a hand-over variable that points elsewhere.
const made: string[] = [];
afterEach(async () => {
  for (const path of made.splice(0)) await rm(path, { recursive: true, force: true });
});

const scrubModule = fileURLToPath(new URL("../src/trust/environ-scrub.ts", import.meta.url));

describe("scrubEnviron", () => {
  // A fresh process started with the secret in its exec-time environment, as the CLI is.
  const inFreshProcess = (script: string, env: Record<string, string>) =>
    JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        env: { PATH: process.env.PATH ?? "/usr/bin", ...env },
        encoding: "utf8",
      }),
    ) as Record<string, unknown>;

  it.skipIf(process.platform !== "linux")(
    "wipes the secret from /proc/self/environ in place and keeps it in process.env and for children",
    () => {
      const result = inFreshProcess(
        `import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
const { scrubEnviron } = await import(${JSON.stringify(scrubModule)});
const wiped = scrubEnviron(["MARKER_API_KEY"]);
const environ = readFileSync("/proc/self/environ", "utf8");
const child = execFileSync("sh", ["-c", 'printf %s "$MARKER_API_KEY"'], { encoding: "utf8" });
console.log(JSON.stringify({ wiped, environ, value: process.env.MARKER_API_KEY, child }));`,
        { MARKER_API_KEY: "sk-marker-7f3a", OTHER_VAR: "kept" },
      );
      expect(result.wiped).toBe(true);
      expect(result.environ).not.toContain("sk-marker-7f3a");
      expect(result.environ).not.toContain("MARKER_API_KEY");
      expect(result.environ).toContain("OTHER_VAR=kept");
      expect(result.value).toBe("sk-marker-7f3a");
      expect(result.child).toBe("sk-marker-7f3a");
    },
  );

  it("with nothing to wipe, reports success and touches nothing", () => {
    const result = inFreshProcess(
      `import { readFileSync } from "node:fs";
const { scrubEnviron } = await import(${JSON.stringify(scrubModule)});
const before = readFileSync("/proc/self/environ", "utf8");
console.log(JSON.stringify({ wiped: scrubEnviron([]), same: before === readFileSync("/proc/self/environ", "utf8") }));`,
      { OTHER_VAR: "kept" },
    );
    expect(result).toEqual({ wiped: true, same: true });
  });
});

describe("handOffSecrets", () => {
  it("names what counts as a secret", () => {
    for (const name of [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_AUTH_TOKEN",
      "GITHUB_TOKEN",
      "AWS_SECRET_ACCESS_KEY",
      "PGPASSWORD_X_PASSWORD",
      "NPM_TOKEN",
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of ["PATH", "HOME", "SSH_AUTH_SOCK", "OPENAI_BASE_URL", "LANG", "TERM"])
      expect(isSecretName(name), name).toBe(false);
  });

  it("on a Node without process.execve, warns once and leaves the environment as it is", () => {
    const saved = Object.getOwnPropertyDescriptor(process, "execve");
    Object.defineProperty(process, "execve", { value: undefined, configurable: true, writable: true });
    try {
      const env = { PATH: "/usr/bin", OPENAI_API_KEY: "k" };
      const warning = handOffSecrets(env);
      expect(warning).toMatch(/OPENAI_API_KEY stay in this process's environment/);
      expect(warning).toMatch(/22\.15/);
      expect(env.OPENAI_API_KEY).toBe("k");
    } finally {
      if (saved) Object.defineProperty(process, "execve", saved);
    }
  });

  it("does nothing without secrets", () => {
    expect(handOffSecrets({ PATH: "/usr/bin" })).toBeUndefined();
  });

  it("ignores, and never deletes, a hand-over file that is not its own", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "not-bridle-"));
    made.push(elsewhere);
    const file = join(elsewhere, "env");
    writeFileSync(file, JSON.stringify({ OPENAI_API_KEY: "planted" }), { mode: 0o600 });
    const env: NodeJS.ProcessEnv = { BRIDLE_SECRET_HANDOFF: file };
    expect(handOffSecrets(env)).toBeUndefined();
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.BRIDLE_SECRET_HANDOFF).toBeUndefined();
    expect(existsSync(file)).toBe(true);
  });

  it("reads its own hand-over file once, keeps only secret names, and deletes it with its folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "bridle-secrets-"));
    made.push(dir);
    const file = join(dir, "env");
    writeFileSync(file, JSON.stringify({ OPENAI_API_KEY: "k", PATH: "/evil", NODE_OPTIONS: "--require x" }), {
      mode: 0o600,
    });
    const env: NodeJS.ProcessEnv = { BRIDLE_SECRET_HANDOFF: file, PATH: "/usr/bin" };
    handOffSecrets(env);
    expect(env.OPENAI_API_KEY).toBe("k");
    expect(env.PATH).toBe("/usr/bin");
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it("refuses a hand-over file others could read", () => {
    const dir = mkdtempSync(join(tmpdir(), "bridle-secrets-"));
    made.push(dir);
    const file = join(dir, "env");
    writeFileSync(file, JSON.stringify({ OPENAI_API_KEY: "k" }), { mode: 0o644 });
    const env: NodeJS.ProcessEnv = { BRIDLE_SECRET_HANDOFF: file };
    handOffSecrets(env);
    expect(env.OPENAI_API_KEY).toBeUndefined();
  });
});
