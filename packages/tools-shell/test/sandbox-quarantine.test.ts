import { execFileSync } from "node:child_process";
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
import { mountScanner, mountsAndEntries, protectedEntriesNow } from "../src/sandbox/agent-config.js";
import { sandboxPolicy } from "../src/sandbox/policy.js";
import { call, failure } from "./helpers.js";

// What no mount can stop — a command creating a protected path that did not exist — is undone after the
// command: the path is moved out of the workspace into the quarantine folder, and the model is told why.
// A user's own protected files, and one moved with its folder, stay where they are.
const probe = await BubblewrapRunner.probe();
const why = probe.available ? "" : ` — SKIPPED: ${probe.reason}`;
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, "-c", "user.email=a@b", "-c", "user.name=n", ...args], {
    encoding: "utf8",
  });

/** Every path under `dir` with its kind and content: what the host holds. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string, shown: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const stat = lstatSync(full);
      const what = stat.isSymbolicLink()
        ? `-> ${readlinkSync(full)}`
        : stat.isDirectory()
          ? "/"
          : readFileSync(full, "utf8");
      out.push(`${shown}${name} ${stat.ino} ${what}`);
      if (stat.isDirectory()) walk(full, `${shown}${name}/`);
    }
  };
  walk(dir, "");
  return out;
}

/** The one batch folder the quarantine gained since `before`, and what it holds for `path`. */
function quarantined(quarantine: string, before: readonly string[], path: string): string {
  const batches = readdirSync(quarantine).filter((name) => !before.includes(name));
  expect(batches).toHaveLength(1);
  return join(quarantine, batches[0] as string, path);
}

const settle = async (path: string) => {
  // A listing is kept only once its folder's last change is older than coarse file system clocks can
  // tell apart (2 s): wait that out, so the walks answer from kept listings.
  const until = lstatSync(path).ctimeMs + 2_100;
  while (Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
};

describe.skipIf(!probe.available)(`protected paths a command creates are quarantined${why}`, () => {
  let dir: string;
  let quarantine: string;
  let cleanup: () => Promise<void>;
  let shell: ShellTools;
  let users: string[];
  let userOwn: () => string[];

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-quarantine-"));
    quarantine = join(dir, "..", `${dir.split("/").pop()}-quarantine`);
    git(dir, "init", "-q");
    writeFileSync(join(dir, "app.txt"), "alpha\n");
    git(dir, "add", "app.txt");
    git(dir, "commit", "-qm", "first");
    // The user's own: a nested repository, a settings file below the root, an agent folder elsewhere.
    mkdirSync(join(dir, "vendor", "lib"), { recursive: true });
    git(join(dir, "vendor", "lib"), "init", "-q");
    mkdirSync(join(dir, "keep"));
    writeFileSync(join(dir, "keep", "bridle.config.json"), '{"model":"mine"}\n');
    mkdirSync(join(dir, "team", ".bridle", "agents"), { recursive: true });
    writeFileSync(join(dir, "team", ".bridle", "agents", "helper.md"), "# mine\n");
    // A settings file that is a link: mounted at its target, so the link itself can be replaced.
    mkdirSync(join(dir, "lk"));
    writeFileSync(join(dir, "lk", "real.json"), '{"model":"linked"}\n');
    symlinkSync("real.json", join(dir, "lk", "bridle.config.json"));
    users = [".git", "vendor/lib/.git", "keep/bridle.config.json", "team/.bridle"];
    userOwn = () =>
      snapshot(dir).filter((line) =>
        [".git", "keep/bridle.config.json", "team/.bridle", "lk/real.json"].some((path) =>
          line.startsWith(path),
        ),
      );
    shell = await createShellTools({ runner: new BubblewrapRunner({ quarantine }), policy: false });
  });
  afterAll(async () => {
    await cleanup();
    execFileSync("rm", ["-rf", quarantine]);
  });

  const run = async (command: string) => {
    const batches = existsSync(quarantine) ? readdirSync(quarantine) : [];
    const { result, details } = await call(shell.bash, { command }, dir);
    return { result, details, batches };
  };

  // Each construction, what it leaves where, and what the quarantine must then hold.
  const CREATIONS: {
    readonly name: string;
    readonly command: string;
    readonly paths: readonly string[];
    readonly check?: (moved: (path: string) => string) => void;
  }[] = [
    {
      name: "printf into an absent bridle.config.json",
      command: "printf x > bridle.config.json",
      paths: ["bridle.config.json"],
      check: (moved) => expect(readFileSync(moved("bridle.config.json"), "utf8")).toBe("x"),
    },
    {
      name: "git init in a subfolder",
      command: "git init -q sub && git -C sub config core.fsmonitor 'touch /tmp/pwned'",
      paths: ["sub/.git"],
      check: (moved) => expect(readFileSync(moved("sub/.git/config"), "utf8")).toContain("fsmonitor"),
    },
    {
      name: "a .git folder made by hand, with commondir",
      command:
        "mkdir -p a/.git && echo '[core] fsmonitor = evil' > a/.git/config && echo /tmp/x > a/.git/commondir",
      paths: ["a/.git"],
      check: (moved) => expect(readFileSync(moved("a/.git/commondir"), "utf8")).toBe("/tmp/x\n"),
    },
    {
      name: "a gitfile",
      command: "mkdir -p b && echo 'gitdir: /tmp/evil' > b/.git",
      paths: ["b/.git"],
    },
    {
      name: "a new .bridle settings file and agent definition, its data kept",
      command:
        "mkdir -p .bridle/agents .bridle/tmp && echo '{}' > .bridle/settings.json && echo x > .bridle/agents/a.md && echo data > .bridle/tmp/d",
      paths: [".bridle/settings.json", ".bridle/agents"],
      check: () => expect(readFileSync(join(dir, ".bridle", "tmp", "d"), "utf8")).toBe("data\n"),
    },
    {
      name: "a dangling link named bridle.config.yaml",
      command: "ln -s /tmp/elsewhere.yaml bridle.config.yaml",
      paths: ["bridle.config.yaml"],
      check: (moved) => expect(readlinkSync(moved("bridle.config.yaml"))).toBe("/tmp/elsewhere.yaml"),
    },
    {
      name: "a link named .git",
      command: "mkdir -p c && ln -s ../.git c/.git",
      paths: ["c/.git"],
    },
    {
      name: "git init through a link to a folder",
      command: "mkdir -p real && ln -s real linked && git init -q linked",
      paths: ["real/.git"],
    },
    {
      name: "a link by the agent folder's name to a folder of definitions",
      command: "mkdir -p l/defs/agents && echo x > l/defs/agents/a.md && ln -s defs l/.bridle",
      paths: ["l/.bridle"],
    },
    {
      name: "a settings link replaced by a file under the same name",
      command: "rm lk/bridle.config.json && echo '{}' > lk/bridle.config.json",
      paths: ["lk/bridle.config.json"],
      check: () => expect(readFileSync(join(dir, "lk", "real.json"), "utf8")).toBe('{"model":"linked"}\n'),
    },
    {
      name: "a repository inside a secret-named folder the command made",
      command: "mkdir -p s/.ssh && git init -q s/.ssh",
      paths: ["s/.ssh/.git"],
    },
    {
      name: "a repository in a folder made by the same command, its times set back",
      command: "mkdir -p n/deep && git init -q n/deep && touch -d '2001-01-01' n/deep n",
      paths: ["n/deep/.git"],
    },
    {
      name: "a tree copied with its times kept (cp -a)",
      command:
        "mkdir -p /tmp/t/inner && echo 'gitdir: /x' > /tmp/t/inner/.git && touch -d '2001-01-01' /tmp/t/inner /tmp/t && cp -a /tmp/t kept-copy",
      paths: ["kept-copy/inner/.git"],
    },
  ];

  it.each(CREATIONS)("$name: moved out, the model told, the user's files untouched", async (creation) => {
    const before = userOwn();
    const { result, batches } = await run(creation.command);
    expect(result.success, result.stderr).toBe(true);
    for (const path of creation.paths) {
      expect(existsSync(join(dir, path)) || isLink(join(dir, path)), path).toBe(false);
      const moved = quarantined(quarantine, batches, join(dir, path));
      expect(existsSync(moved) || isLink(moved), moved).toBe(true);
      expect(result.message).toContain(`the command created ${path}, which commands may not create (`);
      expect(result.message).toContain(`moved out of the workspace to ${moved}, nothing deleted`);
    }
    creation.check?.((path) => quarantined(quarantine, batches, join(dir, path)));
    expect(result.message?.split("the command created ").length).toBe(creation.paths.length + 1);
    expect(userOwn()).toEqual(before);
  });

  it("leaves the user's own protected paths, and a repository moved with its folder, where they are", async () => {
    const before = snapshot(dir);
    const { result } = await run("mv vendor/lib vendor/lib2 && mv keep keep2 && mv keep2 keep");
    expect(result.success, result.stderr).toBe(true);
    expect(result.message).toBeUndefined();
    expect(existsSync(join(dir, "vendor", "lib2", ".git", "HEAD"))).toBe(true);
    // The same files, inodes and contents, at the moved path.
    const after = snapshot(dir).map((line) => line.replace("vendor/lib2", "vendor/lib"));
    expect(after).toEqual(before);
    for (const path of users)
      expect(existsSync(join(dir, path.replace("vendor/lib", "vendor/lib2")))).toBe(true);
  });

  it("never touches what existed before the command: made by the user between commands", async () => {
    mkdirSync(join(dir, "user"));
    writeFileSync(join(dir, "user", "bridle.config.json"), '{"model":"user"}\n');
    git(join(dir, "user"), "init", "-q");
    const { result } = await run("echo ok > user/notes.txt");
    expect(result.message).toBeUndefined();
    expect(readFileSync(join(dir, "user", "bridle.config.json"), "utf8")).toBe('{"model":"user"}\n');
    expect(existsSync(join(dir, "user", ".git", "HEAD"))).toBe(true);
  });

  it("keeps the target of an existing link named .bridle read-only, as the agent's folder it stands for", async () => {
    mkdirSync(join(dir, "lb", "conf"), { recursive: true });
    symlinkSync("conf", join(dir, "lb", ".bridle"));
    const { result } = await run("echo '{}' > lb/.bridle/settings.json || echo '{}' > lb/conf/settings.json");
    expect(result.success).toBe(false);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(readdirSync(join(dir, "lb", "conf"))).toEqual([]);
    expect(isLink(join(dir, "lb", ".bridle"))).toBe(true);
  });

  it("a following command sees a clean tree, and an ordinary one is told nothing", async () => {
    const { result } = await run(
      "ls -A; for p in bridle.config.json sub/.git a/.git b/.git .bridle/settings.json c/.git real/.git; do test -e $p && echo LEFT $p; done; echo made > plain.txt",
    );
    expect(result.success).toBe(true);
    expect(result.stdout).not.toContain("LEFT");
    expect(result.message).toBeUndefined();
    expect(readFileSync(join(dir, "plain.txt"), "utf8")).toBe("made\n");
  });

  it("quarantines what a stopped command made: stop() ends after the check, as done does", async () => {
    const runner = new BubblewrapRunner({ quarantine });
    let out = "";
    const running = await runner.start(
      {
        command: "git init -q stopped && echo ready && sleep 600",
        cwd: dir,
        writableRoots: [dir],
        timeoutMs: 900_000,
        onOutput: (_stream, chunk) => {
          out += Buffer.from(chunk).toString();
        },
      },
      sandboxPolicy(),
    );
    while (!out.includes("ready")) await new Promise((resolve) => setTimeout(resolve, 20));
    const exit = await running.stop();
    expect(exit.stoppedBy).toBe("stop");
    expect(exit.quarantined?.map((moved) => moved.path)).toEqual([join(dir, "stopped", ".git")]);
    expect(exit.notes).toHaveLength(1);
    expect(existsSync(join(dir, "stopped", ".git"))).toBe(false);
  });

  it("tells of at most 20 paths one by one, and counts the rest", async () => {
    const { result, batches } = await run(
      "for i in $(seq 1 25); do mkdir -p many/$i && echo 'gitdir: /x' > many/$i/.git; done",
    );
    expect(result.message?.split("the command created many/").length).toBe(21);
    const batch = quarantined(quarantine, batches, "");
    expect(result.message).toMatch(
      new RegExp(
        `; … and 5 more protected paths the command created, moved under ${batch.replace(/\/$/, "")}$`,
      ),
    );
    for (let i = 1; i <= 25; i++) expect(existsSync(join(dir, "many", String(i), ".git"))).toBe(false);
    expect(readdirSync(join(batch, dir, "many"))).toHaveLength(25);
  });

  it("quarantines the user's Bridle config folder when a command creates it inside the workspace", async () => {
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = join(dir, "cfg-home");
    try {
      const { result, batches } = await run(
        "mkdir -p cfg-home/bridle && echo '{}' > cfg-home/bridle/trust.json",
      );
      expect(existsSync(join(dir, "cfg-home", "bridle"))).toBe(false);
      expect(result.message).toContain(
        "the command created cfg-home/bridle, which commands may not create (it is the user's Bridle config folder",
      );
      expect(
        readFileSync(
          join(quarantined(quarantine, batches, join(dir, "cfg-home", "bridle")), "trust.json"),
          "utf8",
        ),
      ).toBe("{}\n");
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
  });
});

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

describe.skipIf(!probe.available)(`kept listings never hide a new path${why}`, () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let shell: ShellTools;
  let quarantine: string;
  const canary = `CANARY-${process.pid}-kept`;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-kept-"));
    quarantine = `${dir}-quarantine`;
    for (const name of ["host-env", "host-git", "host-config", "cmd", "cmd-copy"])
      mkdirSync(join(dir, "old", name), { recursive: true });
    shell = await createShellTools({ runner: new BubblewrapRunner({ quarantine }), policy: false });
    await settle(join(dir, "old", "cmd-copy"));
    // Listed now, and settled: later walks answer from these listings while the folders' ctimes stand.
    await call(shell.bash, { command: "true" }, dir);
  });
  afterAll(async () => {
    await cleanup();
    execFileSync("rm", ["-rf", quarantine]);
  });

  const run = async (command: string) => (await call(shell.bash, { command }, dir)).result;

  it("a secret, a .git and a settings file made on the host between commands, times set back", async () => {
    const made: [string, () => void][] = [
      ["host-env", () => writeFileSync(join(dir, "old", "host-env", ".env"), `${canary}\n`)],
      ["host-git", () => git(join(dir, "old", "host-git"), "init", "-q")],
      ["host-config", () => writeFileSync(join(dir, "old", "host-config", "bridle.config.json"), "{}\n")],
    ];
    for (const [folder, make] of made) {
      const old = lstatSync(join(dir, "old", folder));
      make();
      utimesSync(join(dir, "old", folder), old.atime, old.mtime);
      expect(Math.abs(lstatSync(join(dir, "old", folder)).mtimeMs - old.mtimeMs)).toBeLessThan(1);
    }
    const result = await run(
      "cat old/host-env/.env; echo '[core] fsmonitor = x' >> old/host-git/.git/config; echo x > old/host-config/bridle.config.json",
    );
    expect(result.stdout).not.toContain(canary);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(git(join(dir, "old", "host-git"), "config", "--list")).not.toContain("fsmonitor");
    expect(readFileSync(join(dir, "old", "host-config", "bridle.config.json"), "utf8")).toBe("{}\n");
    // Made by the user, not by a command: never quarantined.
    expect(result.message).toBeUndefined();
  });

  it("a secret and a .git a command made in a kept folder, its mtime set back with touch -d", async () => {
    const made = await run(
      `P=CANARY-; echo "$P"${process.pid}-kept > old/cmd/.env; git init -q old/cmd; touch -d '2001-01-01' old/cmd`,
    );
    expect(made.message).toContain("the command created old/cmd/.git");
    expect(existsSync(join(dir, "old", "cmd", ".git"))).toBe(false);
    const next = await run("cat old/cmd/.env");
    expect(next.stdout).not.toContain(canary);
  });

  it("a tree copied into a kept folder with cp -p, its times kept", async () => {
    const made = await run(
      `mkdir -p /tmp/t/in && P=CANARY-; echo "$P"${process.pid}-kept > /tmp/t/in/id_rsa && echo 'gitdir: /x' > /tmp/t/in/.git && touch -d '2001-01-01' /tmp/t/in /tmp/t && cp -rp /tmp/t old/cmd-copy/t && touch -d '2001-01-01' old/cmd-copy`,
    );
    expect(made.message).toContain("the command created old/cmd-copy/t/in/.git");
    const next = await run("cat old/cmd-copy/t/in/id_rsa");
    expect(next.stdout).not.toContain(canary);
  });
});

describe("the walk's kept listings, before and after a command", () => {
  it("reads only changed folders, and finds each kind made in a kept folder whose mtime was set back", async () => {
    const { dir, cleanup } = await tempWorkspace("bridle-kept-walk-");
    try {
      const kinds = {
        secret: ".env",
        git: ".git",
        config: "bridle.config.toml",
        agent: ".bridle/settings.json",
      };
      for (const name of Object.keys(kinds)) mkdirSync(join(dir, "k", name), { recursive: true });
      mkdirSync(join(dir, "k", "agent", ".bridle"));
      await settle(join(dir, "k", "agent", ".bridle"));
      const scanner = mountScanner();
      const request = { writableRoots: [dir], shownTrees: [], maskSecrets: true };
      mountsAndEntries(scanner, request);
      const before = mountsAndEntries(scanner, request);
      // Every folder answered from its kept listing: the test below can tell a kept listing from a new one.
      expect(scanner.listed).toBe(0);
      expect(before.mounts.map((mount) => mount.path)).toEqual([join(dir, "k", "agent", ".bridle")]);
      for (const [name, path] of Object.entries(kinds)) {
        const folder = join(dir, "k", name, ...path.split("/").slice(0, -1));
        const old = lstatSync(folder);
        if (name === "git") mkdirSync(join(folder, path));
        else writeFileSync(join(dir, "k", name, path), "x\n");
        utimesSync(folder, old.atime, old.mtime);
      }
      const now = protectedEntriesNow(scanner, [dir], before).map((entry) => entry.path);
      expect(scanner.listed).toBe(4);
      expect(now.sort()).toEqual(
        [
          join(dir, "k", "git", ".git"),
          join(dir, "k", "config", "bridle.config.toml"),
          join(dir, "k", "agent", ".bridle", "settings.json"),
        ].sort(),
      );
      const next = mountsAndEntries(scanner, request);
      expect(next.mounts.map((mount) => `${mount.mode} ${mount.path.slice(dir.length + 1)}`).sort()).toEqual(
        [
          "masked k/secret/.env",
          "read-only k/agent/.bridle",
          "read-only k/config/bridle.config.toml",
          "read-only k/git/.git",
        ].sort(),
      );
    } finally {
      await cleanup();
    }
  });
});

describe.skipIf(!probe.available)(`when the check after a command cannot finish its work${why}`, () => {
  it("says so when a path cannot be moved, and the next command finds it read-only", async () => {
    const { dir, cleanup } = await tempWorkspace("bridle-unmovable-");
    try {
      // A quarantine folder below a file cannot be made.
      writeFileSync(join(dir, "..", `${dir.split("/").pop()}-file`), "\n");
      const quarantine = join(dir, "..", `${dir.split("/").pop()}-file`, "q");
      const shell = await createShellTools({ runner: new BubblewrapRunner({ quarantine }), policy: false });
      const { result } = await call(shell.bash, { command: "printf x > bridle.config.json" }, dir);
      expect(result.message).toContain(
        "the command created bridle.config.json, which commands may not create (it is the agent's own configuration): it could not be moved out of the workspace, is read-only from the next command on, and the user should remove it",
      );
      expect(readFileSync(join(dir, "bridle.config.json"), "utf8")).toBe("x");
      const next = await call(shell.bash, { command: "printf y > bridle.config.json" }, dir);
      expect(next.result.stderr).toMatch(/Read-only file system/);
      expect(readFileSync(join(dir, "bridle.config.json"), "utf8")).toBe("x");
    } finally {
      execFileSync("rm", ["-f", `${dir}-file`]);
      await cleanup();
    }
  });

  it("says so when the walk after the command passes its bound, and the next command is refused", async () => {
    const { dir, cleanup } = await tempWorkspace("bridle-bound-after-");
    try {
      for (let i = 0; i < 10; i++) writeFileSync(join(dir, `f${i}.txt`), "\n");
      const shell = await createShellTools({
        runner: new BubblewrapRunner({ maxScanEntries: 30, quarantine: `${dir}-quarantine` }),
        policy: false,
      });
      const { result } = await call(shell.bash, { command: "touch g{1..40}; git init -q sub" }, dir);
      expect(result.message).toMatch(
        /^the check for protected paths \(.git, bridle.config.\*, .bridle\) the command may have created stopped: .*stopped after 30 files and folders/,
      );
      const next = await failure(call(shell.bash, { command: "touch ran" }, dir));
      expect(next.kind).toBe("LimitExceeded");
      expect(existsSync(join(dir, "ran"))).toBe(false);
    } finally {
      await cleanup();
    }
  });
});
