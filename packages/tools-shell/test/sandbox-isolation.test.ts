import { execFile, execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapRunner, createShellTools, type ShellTools } from "../src/index.js";
import { call } from "./helpers.js";

// What a sandboxed command must not reach on this host, each set up for real by the test: Unix sockets
// served under /tmp, /run and in the abstract namespace, files of a home folder outside the allowlist, a
// root-only file in /etc, and the workspace's agent configuration (readable, never writable).
const execFileAsync = promisify(execFile);
const probe = await BubblewrapRunner.probe();
const why = probe.available ? "" : ` — SKIPPED: ${probe.reason}`;
const IS_ROOT = process.getuid?.() === 0;
const tag = `bridle-iso-${process.pid}`;
const python = ["/usr/bin/python3", "/bin/python3"].find((path) => existsSync(path));

describe.skipIf(!probe.available)(`the bubblewrap sandbox isolates the host${why}`, () => {
  let dir: string;
  let home: string;
  let cleanup: () => Promise<void>;
  let shell: ShellTools;
  const servers: Server[] = [];
  const sockets = {
    tmp: join("/tmp", `${tag}.sock`),
    run: join("/run", tag, "s.sock"),
    abstract: `\0${tag}`,
  };
  const rootOnly = join("/etc", `${tag}.secret`);
  const savedHome = process.env.HOME;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-iso-"));
    home = join(dir, "..", `${tag}-home`);
    mkdirSync(join(home, ".cache", "tool"), { recursive: true });
    mkdirSync(join(home, ".cache", "rw"), { recursive: true });
    writeFileSync(join(home, "notes.txt"), "HOME-PRIVATE\n");
    writeFileSync(join(home, ".cache", "tool", "ok.txt"), "allowed\n");
    process.env.HOME = home;
    // A real repository with agent configuration.
    execFileSync("git", ["init", "-q", dir]);
    writeFileSync(join(dir, "bridle.config.json"), '{"model":"m"}\n');
    writeFileSync(join(dir, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    mkdirSync(join(dir, ".git", "info"), { recursive: true });
    writeFileSync(join(dir, ".git", "info", "attributes"), "");
    // A submodule's git folder, as git keeps it: its own config and hooks.
    mkdirSync(join(dir, ".git", "modules", "lib", "hooks"), { recursive: true });
    writeFileSync(join(dir, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(dir, ".git", "modules", "lib", "config"), "[core]\n\tbare = false\n");
    writeFileSync(join(dir, ".git", "modules", "lib", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n");
    // Host services on Unix sockets.
    mkdirSync(join("/run", tag), { recursive: true });
    for (const path of Object.values(sockets)) {
      const server = createServer((socket) => socket.end("HOST-SOCKET\n"));
      await new Promise<void>((resolve) => server.listen(path, resolve));
      servers.push(server);
    }
    if (IS_ROOT) {
      writeFileSync(rootOnly, "ROOT-ONLY\n", { mode: 0o600 });
      chmodSync(rootOnly, 0o600);
    }
    shell = await createShellTools({
      runner: new BubblewrapRunner({
        readable: [join(home, ".cache", "tool")],
        writable: [join(home, ".cache", "rw")],
      }),
      policy: false,
    });
  });
  afterAll(async () => {
    process.env.HOME = savedHome;
    for (const server of servers) server.close();
    rmSync(join("/run", tag), { recursive: true, force: true });
    rmSync(sockets.tmp, { force: true });
    rmSync(rootOnly, { force: true });
    rmSync(home, { recursive: true, force: true });
    await cleanup();
  });

  const run = async (command: string) => (await call(shell.bash, { command }, dir)).result;

  it.skipIf(!python)(
    "reaches no host Unix socket: not under /tmp, not under /run, not abstract",
    async () => {
      // "@name" is the abstract socket "\0name".
      const client = join(dir, "client.py");
      writeFileSync(
        client,
        "import socket, sys\npath = sys.argv[1]\npath = '\\0' + path[1:] if path.startswith('@') else path\ns = socket.socket(socket.AF_UNIX)\ns.connect(path)\nprint(s.recv(64).decode())\n",
      );
      for (const [name, path] of Object.entries(sockets)) {
        const address = path.replace("\0", "@");
        // The same client reaches each server from the host: the check can fail.
        // (asynchronously: the servers live in this process)
        const fromHost = await execFileAsync(python as string, [client, address], { encoding: "utf8" });
        expect(fromHost.stdout, name).toContain("HOST-SOCKET");
        const inside = await run(`${python} client.py '${address}'`);
        expect(inside.stdout, name).not.toContain("HOST-SOCKET");
        expect(inside.success, name).toBe(false);
      }
    },
  );

  it("sees no socket file anywhere, and empty /run and /tmp", async () => {
    const result = await run(
      "find / -type s -not -path '/proc/*' 2>/dev/null; echo run:$(ls -A /run); echo var-run:$(ls -A /var/run/)",
    );
    expect(result.stdout).toBe("run:\nvar-run:\n");
  });

  it("shows none of the home folder but the allowlist (read-only, or writable where listed)", async () => {
    const result = await run(
      [
        'cat "$HOME/notes.txt"',
        'cat "$HOME/.cache/tool/ok.txt"',
        'echo x > "$HOME/.cache/tool/new.txt" || echo tool-readonly',
        'echo x > "$HOME/.cache/rw/new.txt" && echo rw-written',
        'echo scratch > "$HOME/scratch.txt" && echo scratch-ok',
      ].join("; "),
    );
    expect(result.stdout).not.toContain("HOME-PRIVATE");
    expect(result.stderr).toMatch(/notes\.txt: No such file/);
    expect(result.stdout).toContain("allowed");
    expect(result.stdout).toContain("tool-readonly");
    expect(result.stdout).toContain("rw-written");
    expect(existsSync(join(home, ".cache", "tool", "new.txt"))).toBe(false);
    expect(readFileSync(join(home, ".cache", "rw", "new.txt"), "utf8")).toBe("x\n");
    // The empty home is the sandbox's own: nothing lands in the real one.
    expect(result.stdout).toContain("scratch-ok");
    expect(existsSync(join(home, "scratch.txt"))).toBe(false);
  });

  it.skipIf(!IS_ROOT && !existsSync("/etc/shadow"))(
    "cannot read a root-only file, even when the agent is root",
    async () => {
      const target = IS_ROOT ? rootOnly : "/etc/shadow";
      const result = await run(
        `cat ${target}; id -u; grep -c . /proc/self/status >/dev/null; grep CapEff /proc/self/status`,
      );
      expect(result.stdout).not.toContain("ROOT-ONLY");
      if (!IS_ROOT) expect(result.stderr).toMatch(/Permission denied/);
      expect(result.stdout).toMatch(/CapEff:\s+0+\n/);
    },
  );

  it("lets git read the repository but not change it (commits go through git_commit), and the rest of the workspace stays writable", async () => {
    execFileSync("git", [
      "-C",
      dir,
      "-c",
      "user.email=a@b",
      "-c",
      "user.name=n",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "first",
    ]);
    const result = await run(
      "echo hi > new.txt && mkdir -p dist && echo x > dist/a && git status --short new.txt && git log --oneline | wc -l && git add new.txt",
    );
    expect(result.stdout).toContain("?? new.txt");
    expect(result.stdout).toMatch(/^1$/m);
    expect(result.stderr).toMatch(/index\.lock': Read-only file system/);
    expect(execFileSync("git", ["-C", dir, "status", "--short", "new.txt"], { encoding: "utf8" })).toBe(
      "?? new.txt\n",
    );
    expect(readFileSync(join(dir, "dist", "a"), "utf8")).toBe("x\n");
  });

  it("hides the credential stores when the workspace is the home folder itself", async () => {
    const { dir: homeWorkspace, cleanup: done } = await tempWorkspace("bridle-iso-home-");
    try {
      mkdirSync(join(homeWorkspace, ".ssh"));
      writeFileSync(join(homeWorkspace, ".ssh", "id_ed25519"), "PRIVATE KEY\n");
      mkdirSync(join(homeWorkspace, ".config", "bridle"), { recursive: true });
      writeFileSync(join(homeWorkspace, ".config", "bridle", "trusted-workspaces.json"), "{}\n");
      writeFileSync(join(homeWorkspace, ".npmrc"), "//registry/:_authToken=NPM-SECRET\n");
      process.env.HOME = homeWorkspace;
      const inHome = await createShellTools({ runner: new BubblewrapRunner(), policy: false });
      const { result } = await call(
        inHome.bash,
        {
          command:
            "cat .ssh/id_ed25519 .npmrc; echo '{\"x\":1}' > .config/bridle/trusted-workspaces.json; echo ok > notes.txt && cat notes.txt",
        },
        homeWorkspace,
      );
      expect(result.stdout).not.toContain("PRIVATE KEY");
      expect(result.stdout).not.toContain("NPM-SECRET");
      expect(result.stdout).toContain("ok");
      expect(readFileSync(join(homeWorkspace, ".config", "bridle", "trusted-workspaces.json"), "utf8")).toBe(
        "{}\n",
      );
    } finally {
      process.env.HOME = home;
      await done();
    }
  });

  // The agent configuration: every write primitive against every protected path. Each must leave the
  // host's files exactly as they were, while reading them works.
  const PROTECTED = [
    "bridle.config.json",
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/info/attributes",
    ".git/modules/lib/config",
    ".git/modules/lib/hooks/pre-commit",
  ];
  const WRITES: Record<string, (path: string) => string> = {
    append: (p) => `echo evil >> ${p}`,
    overwrite: (p) => `echo evil > ${p}`,
    truncate: (p) => `truncate -s 0 ${p}`,
    remove: (p) => `rm -f ${p}`,
    "rename away": (p) => `mv ${p} ${p}.moved`,
    "replace by rename": (p) => `echo evil > x.tmp && mv -f x.tmp ${p}`,
    "sed in place": (p) => `sed -i 's/^/evil/' ${p}`,
    "symlink over": (p) => `ln -sf /dev/null ${p}`,
    chmod: (p) => `chmod 777 ${p}`,
    "cp over": (p) => `echo evil > y.tmp && cp y.tmp ${p}`,
  };
  const FOLDER_WRITES: Record<string, string> = {
    "new hook": "echo evil > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout",
    "hooks folder removed": "rm -rf .git/hooks",
    "hooks folder renamed": "mv .git/hooks .git/hooks.old && mkdir .git/hooks",
    "git folder swapped": "mv .git .git.old && mkdir .git",
    "git folder removed": "rm -rf .git",
    "submodule folder swapped": "mv .git/modules/lib .git/modules/lib.old && mkdir -p .git/modules/lib/hooks",
    "config through git": "git config core.fsmonitor 'echo evil'",
    "hooksPath through git": "git config core.hooksPath /tmp",
    "attributes appended": "echo '* filter=evil' >> .git/info/attributes",
  };

  function snapshot(): string {
    const out: string[] = [];
    const walk = (path: string) => {
      const stat = lstatSync(path);
      out.push(`${path} ${stat.mode.toString(8)}`);
      if (stat.isDirectory()) for (const name of readdirSync(path).sort()) walk(join(path, name));
      else if (stat.isFile()) out.push(readFileSync(path, "utf8"));
    };
    for (const path of [
      "bridle.config.json",
      ".git/config",
      ".git/hooks",
      ".git/info",
      ".git/modules/lib/config",
      ".git/modules/lib/hooks",
    ])
      walk(join(dir, path));
    return out.join("\n");
  }

  it("lets commands read the agent configuration", async () => {
    const result = await run(PROTECTED.map((path) => `cat ${path}`).join(" && "));
    expect(result.success).toBe(true);
    expect(result.stdout).toContain('{"model":"m"}');
    expect(result.stdout).toContain("[core]");
    expect(result.stdout).toContain("exit 0");
  });

  it(`keeps it unwritable: ${PROTECTED.length} paths × ${Object.keys(WRITES).length} write primitives, and ${Object.keys(FOLDER_WRITES).length} folder attacks`, async () => {
    const before = snapshot();
    const cases = [
      ...PROTECTED.flatMap((path) =>
        Object.entries(WRITES).map(([name, write]) => [`${name} ${path}`, write(path)]),
      ),
      ...Object.entries(FOLDER_WRITES),
    ];
    for (const [name, command] of cases) {
      await run(command as string);
      expect(snapshot(), name).toBe(before);
    }
  });
});
