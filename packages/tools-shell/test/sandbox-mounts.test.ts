import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapRunner, createShellTools, type ShellTools } from "../src/index.js";
import { mountScanner, treeMounts } from "../src/sandbox/agent-config.js";
import { readUntil, startAgent } from "./agent-process.js";
import { call, failure } from "./helpers.js";

// From inside the real sandbox: secrets the workspace holds read as empty whatever reads them, every git
// folder and the agent's configuration stay as they are whatever writes them, and no mount leaves a file
// behind on the host. The canary is never written whole into a command, so only a secret can print it.
const probe = await BubblewrapRunner.probe();
const why = probe.available ? "" : ` — SKIPPED: ${probe.reason}`;
const suffix = randomBytes(6).toString("hex");
const canary = `SECRET-CANARY-${suffix}`;
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, "-c", "user.email=a@b", "-c", "user.name=n", ...args], {
    encoding: "utf8",
  });

/** Every path under `dir` with its kind, size and mode: what the host sees. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string, shown: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const stat = lstatSync(full);
      out.push(`${shown}${name} ${stat.mode.toString(8)} ${stat.isDirectory() ? "" : stat.size}`);
      if (stat.isDirectory()) walk(full, `${shown}${name}/`);
    }
  };
  walk(dir, "");
  return out;
}

describe.skipIf(!probe.available)(`the sandbox's mounts carry the protections${why}`, () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let shell: ShellTools;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-mounts-"));
    git(dir, "init", "-q");
    writeFileSync(join(dir, "app.txt"), "alpha\n");
    git(dir, "add", "app.txt");
    git(dir, "commit", "-qm", "first");
    writeFileSync(join(dir, ".env"), `API_KEY=${canary}\n`);
    mkdirSync(join(dir, "config", "deep"), { recursive: true });
    writeFileSync(join(dir, "config", "deep", "server.pem"), `${canary}\n`);
    mkdirSync(join(dir, "config", ".aws"));
    writeFileSync(join(dir, "config", ".aws", "config"), `${canary}\n`);
    // List files naming the secrets, for readers that take their file names from a file.
    writeFileSync(join(dir, "list0"), ".env\0config/deep/server.pem\0config/.aws/config\0");
    writeFileSync(join(dir, "list"), ".env\nconfig/deep/server.pem\nconfig/.aws/config\n");
    writeFileSync(join(dir, "bridle.config.json"), '{"model":"m"}\n');
    writeFileSync(join(dir, "config", "bridle.config.yaml"), "model: m\n");
    // A submodule's git folder, a nested repository and a linked worktree's gitfile.
    mkdirSync(join(dir, ".git", "modules", "x"), { recursive: true });
    writeFileSync(join(dir, ".git", "modules", "x", "config"), "[core]\n\tbare = false\n");
    writeFileSync(join(dir, ".git", "modules", "x", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(dir, "nested"));
    git(join(dir, "nested"), "init", "-q");
    mkdirSync(join(dir, "wt"));
    writeFileSync(join(dir, "wt", ".git"), "gitdir: ../.git/worktrees/wt\n");
    // The agent's folder: definitions protected, data writable.
    mkdirSync(join(dir, ".bridle", "agents"), { recursive: true });
    writeFileSync(join(dir, ".bridle", "agents", "helper.md"), "# helper\n");
    mkdirSync(join(dir, ".bridle", "tmp"), { recursive: true });
    shell = await createShellTools({ runner: new BubblewrapRunner(), policy: false });
  });
  afterAll(() => cleanup());

  const run = async (command: string) => (await call(shell.bash, { command }, dir)).result;

  it("the secrets hold the canary on the host, and a sandbox that does not mask shows it (the test can fail)", async () => {
    expect(readFileSync(join(dir, ".env"), "utf8")).toContain(canary);
    const open = await createShellTools({
      runner: new BubblewrapRunner({ maskSecrets: false }),
      policy: false,
    });
    const { result } = await call(open.bash, { command: "cat .env config/deep/server.pem" }, dir);
    expect(result.stdout.split(canary).length - 1).toBe(2);
  });

  const READERS: Record<string, string> = {
    cat: "cat .env config/deep/server.pem config/.aws/config",
    "sort --files0-from": "sort --files0-from=list0",
    "xargs from a list": "xargs cat < list",
    "tar c": "tar cf - .env config | tar xOf -",
    "tar -T": "tar cf - -T list | tar xOf -",
    "grep -r": "grep -r -a SECRET-CANARY .",
    "git hash-object, then show":
      "git show $(git hash-object -w --stdin < .env 2>/dev/null || git hash-object .env) 2>&1; git hash-object .env",
    "git diff --no-index": "git diff --no-index --text /dev/null config/deep/server.pem",
    "glob and find": "cat .e* config/*/*.pem; find . -name '*.pem' -exec cat {} +",
    "copy then read": "cp .env copy.txt; cat copy.txt; rm -f copy.txt",
  };

  it(`masks the secrets for ${Object.keys(READERS).length} kinds of reader`, async () => {
    for (const [name, command] of Object.entries(READERS)) {
      const result = await run(command);
      expect(result.stdout + result.stderr, name).not.toContain(canary);
    }
    // What git sees of the working file is an empty file.
    const hashed = await run("git hash-object .env");
    expect(hashed.stdout.trim()).toBe("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  });

  it("masks a secret an earlier command made, from the next command on", async () => {
    const made = await run(
      `P=SECRET-CANARY-; mkdir -p later/.ssh; echo "$P"${suffix} > later/prod.env; echo "$P"${suffix} > later/.ssh/id_x; cat later/prod.env`,
    );
    // Within the command that made it, it is its own output; the host holds it.
    expect(made.stdout).toContain(canary);
    expect(readFileSync(join(dir, "later", "prod.env"), "utf8")).toContain(canary);
    const next = await run("cat later/prod.env later/.ssh/id_x; ls -A later/.ssh");
    expect(next.stdout + next.stderr).not.toContain(canary);
  });

  // Paths of git's and the agent's configuration, existing or absent, and what must hold for each.
  const PROTECTED_WRITES: Record<string, string> = {
    "create .git/commondir": "echo /tmp/evil > .git/commondir",
    "overwrite .git/HEAD": "echo 'ref: refs/heads/evil' > .git/HEAD",
    "create .git/objects/info/alternates":
      "mkdir -p .git/objects/info; echo /tmp/evil > .git/objects/info/alternates",
    "create .git/config.worktree": "echo '[core]' > .git/config.worktree",
    "create .git/worktrees": "mkdir -p .git/worktrees/w && echo /tmp > .git/worktrees/w/gitdir",
    "write .git/modules/x/config": "echo '[core] fsmonitor = evil' >> .git/modules/x/config",
    "create .git/modules/y": "mkdir -p .git/modules/y && echo evil > .git/modules/y/config",
    "rename .git/modules aside": "mv .git/modules .git/m2",
    "rename .git aside": "mv .git .git.old && mkdir .git",
    "nested repository's config": "git -C nested config core.fsmonitor evil",
    "nested repository's hook": "echo evil > nested/.git/hooks/post-checkout",
    "gitfile redirected": "echo 'gitdir: /tmp/evil' > wt/.git",
    "gitfile removed": "rm -f wt/.git",
    "bridle.config.json overwritten": "echo '{}' > bridle.config.json",
    "bridle.config.json by sed": "sed -i 's/m/evil/' bridle.config.json",
    "bridle.config.json removed": "rm -f bridle.config.json",
    "bridle.config.json renamed over": "echo '{}' > t.json && mv -f t.json bridle.config.json",
    "nested bridle.config.yaml": "echo evil > config/bridle.config.yaml",
    "agent definition": "echo evil >> .bridle/agents/helper.md",
    "new agent definition": "echo evil > .bridle/agents/new.md",
    "new file in .bridle": "echo evil > .bridle/settings.json",
    "agents folder renamed": "mv .bridle/agents .bridle/a2",
  };
  const ABSENT = [
    ".git/commondir",
    ".git/objects/info/alternates",
    ".git/config.worktree",
    ".git/worktrees",
    ".git/modules/y",
    ".git/m2",
    ".git.old",
    ".bridle/agents/new.md",
    ".bridle/settings.json",
    ".bridle/a2",
  ];

  it(`keeps every git folder and the agent's configuration as it is: ${Object.keys(PROTECTED_WRITES).length} writes`, async () => {
    const watched = [
      ".git",
      "nested/.git",
      "wt/.git",
      "bridle.config.json",
      "config/bridle.config.yaml",
      ".bridle/agents",
    ];
    const snapshot = () => tree(dir).filter((line) => watched.some((path) => line.startsWith(path)));
    const before = snapshot();
    for (const [name, command] of Object.entries(PROTECTED_WRITES)) {
      const result = await run(command);
      expect(result.success, name).toBe(false);
      expect(snapshot(), name).toEqual(before);
    }
    for (const path of ABSENT) expect(existsSync(join(dir, path)), path).toBe(false);
    expect(() => git(dir, "config", "--get", "core.fsmonitor")).toThrow();
    expect(readFileSync(join(dir, ".git", "HEAD"), "utf8")).toMatch(/^ref: refs\/heads\/(main|master)\n$/);
  });

  it("leaves ordinary files writable: sed -i, a build's output, the agent's data folders", async () => {
    const result = await run(
      "sed -i 's/alpha/beta/' app.txt && mkdir -p dist && echo built > dist/out.js && echo data > .bridle/tmp/x && git status --short app.txt",
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(" M app.txt");
    expect(readFileSync(join(dir, "app.txt"), "utf8")).toBe("beta\n");
    expect(readFileSync(join(dir, "dist", "out.js"), "utf8")).toBe("built\n");
    expect(readFileSync(join(dir, ".bridle", "tmp", "x"), "utf8")).toBe("data\n");
  });

  it("leaves nothing behind on the host: the same files, kinds and sizes after commands as before", async () => {
    const before = tree(dir);
    for (const command of [...Object.values(READERS), "true", "ls -la .git .bridle >/dev/null"])
      await run(command);
    expect(tree(dir)).toEqual(before);
  });

  it("hands the command no descriptor but its own three, even the agent's open secret file", async () => {
    // The agent holds `.env` open on fd 100 without O_CLOEXEC. The shell's own descriptors are listed by a
    // child into a file the shell never opens (a pipe or a glob would show the shell's own for it).
    const agent = startAgent({
      runner: "bwrap",
      command: "cat <&100 /proc/self/fd/100; ls /proc/$$/fd > /tmp/fds; echo fds: $(cat /tmp/fds)",
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      inheritedFile: join(dir, ".env"),
    });
    // The agent did hold it (polled: the shell in front of node opens it right after the spawn).
    let flags = "";
    for (let i = 0; i < 1000 && flags === ""; i++) {
      try {
        if (readlinkSync(`/proc/${agent.pid}/fd/100`) === join(dir, ".env"))
          flags = readFileSync(`/proc/${agent.pid}/fdinfo/100`, "utf8");
      } catch {
        // not open yet
      }
      if (flags === "") await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const value = Number.parseInt(/^flags:\s*([0-7]+)/m.exec(flags)?.[1] ?? "2000000", 8);
    expect(value & 0o2000000).toBe(0);
    const { stdout, stderr } = await readUntil(agent, /^exit /m);
    expect(stderr).toMatch(/^exit /m);
    expect(stdout + stderr).not.toContain(canary);
    expect(stdout).toContain("fds: 0 1 2\n");
  });
});

describe("the walk behind the mounts", () => {
  it("finds a secret made in a folder whose listing it kept, even when the folder's mtime is set back", async () => {
    const { dir, cleanup } = await tempWorkspace("bridle-scan-");
    try {
      mkdirSync(join(dir, "kept"));
      writeFileSync(join(dir, "kept", "a.ts"), "\n");
      const scanner = mountScanner();
      const request = { writableRoots: [dir], shownTrees: [], maskSecrets: true };
      // A listing is kept only once the folder's last change is older than the file system's clock
      // granularity allows to tell apart: wait that out, so the next scans answer from the kept listing.
      const settled = lstatSync(join(dir, "kept")).ctimeMs + 2_100;
      while (Date.now() < settled) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(treeMounts(scanner, request)).toEqual([]);
      expect(treeMounts(scanner, request)).toEqual([]);
      const old = lstatSync(join(dir, "kept"));
      writeFileSync(join(dir, "kept", ".env"), "KEY=x\n");
      // Setting the times back moves ctime forward all the same.
      utimesSync(join(dir, "kept"), old.atime, old.mtime);
      expect(treeMounts(scanner, request)).toEqual([
        { path: join(dir, "kept", ".env"), kind: "file", mode: "masked" },
      ]);
    } finally {
      await cleanup();
    }
  });

  it("derives every mount from core's rules: .git at any depth whole, the agent's folder but its data, secrets in folders", async () => {
    const { dir, cleanup } = await tempWorkspace("bridle-scan-");
    try {
      for (const folder of [".git/hooks", "a/b/.git", ".bridle/agents", ".bridle/tmp", "c/.ssh", "d"])
        mkdirSync(join(dir, folder), { recursive: true });
      for (const file of [
        "bridle.config.json",
        "d/bridle.config.yaml",
        "d/key.pem",
        "e.env.example",
        "wt.git",
      ])
        writeFileSync(join(dir, file), "\n");
      mkdirSync(join(dir, "wt"));
      writeFileSync(join(dir, "wt", ".git"), "gitdir: ../.git/worktrees/wt\n");
      symlinkSync("../d/key.pem", join(dir, "a", "cert.pem"));
      const mounts = treeMounts(mountScanner(), {
        writableRoots: [dir],
        shownTrees: [],
        protect: [join(dir, "d"), "/elsewhere/mcp.json"],
        maskSecrets: true,
      });
      const shown = mounts.map((mount) => `${mount.mode} ${mount.kind} ${mount.path.slice(dir.length + 1)}`);
      expect(shown.sort()).toEqual(
        [
          "masked dir c/.ssh",
          // and the link to it, mounted at its target (once)
          "masked file d/key.pem",
          "read-only dir .bridle",
          "read-only dir .git",
          "read-only dir a/b/.git",
          // the view's `protect`, inside the workspace only
          "read-only dir d",
          "read-only file bridle.config.json",
          "read-only file d/bridle.config.yaml",
          "read-only file wt/.git",
          "writable dir .bridle/tmp",
        ].sort(),
      );
      // Parents before children, so each mount lands on the one above it.
      const depths = mounts.map((mount) => mount.path.split("/").length);
      expect(depths).toEqual([...depths].sort((a, b) => a - b));
    } finally {
      await cleanup();
    }
  });

  it.skipIf(!probe.available)(
    "fails closed past its bound: the command does not run, and the model is told why",
    async () => {
      const { dir, cleanup } = await tempWorkspace("bridle-scan-");
      try {
        for (let i = 0; i < 30; i++) writeFileSync(join(dir, `f${i}.txt`), "\n");
        const shell = await createShellTools({
          runner: new BubblewrapRunner({ maxScanEntries: 20 }),
          policy: false,
        });
        const refused = await failure(call(shell.bash, { command: "touch ran" }, dir));
        expect(refused.kind).toBe("LimitExceeded");
        expect(refused.message).toMatch(/stopped after 20 files and folders.*maxScanEntries/);
        expect(existsSync(join(dir, "ran"))).toBe(false);
      } finally {
        await cleanup();
      }
    },
  );

  it.skipIf(!probe.available)("masks secrets in the folders of home the view shows", async () => {
    const { dir, cleanup } = await tempWorkspace("bridle-scan-");
    const { dir: cache, cleanup: done } = await tempWorkspace("bridle-scan-cache-");
    try {
      mkdirSync(join(cache, "tool"));
      writeFileSync(join(cache, "tool", ".npmrc"), `//registry/:_authToken=${canary}\n`);
      writeFileSync(join(cache, "tool", "ok.txt"), "visible\n");
      const shell = await createShellTools({
        runner: new BubblewrapRunner({ readable: [cache] }),
        policy: false,
      });
      const { result } = await call(
        shell.bash,
        { command: `cat ${cache}/tool/ok.txt ${cache}/tool/.npmrc` },
        dir,
      );
      expect(result.stdout).toContain("visible");
      expect(result.stdout).not.toContain(canary);
    } finally {
      await done();
      await cleanup();
    }
  });
});
