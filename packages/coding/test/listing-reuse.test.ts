// A workspace scan keeps git's listing while nothing it depends on has changed (ListingSignature), so a
// command that changes no name costs no git process. Every way a command can change what git would list
// must still be seen: each one below runs against a repository whose listing was kept, and the scan after
// it must equal what a scanner with nothing kept lists.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { mkdir, mkdtemp, open, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WorkspaceScanner } from "../src/rewind/entries.js";
import { ListingSignature, MAX_SIGNED_FOLDERS } from "../src/rewind/listing-signature.js";
import { gitCallLog, gitIn, tempRepo, writeFiles } from "./repo.js";

// Every git the scanner starts goes through a shim that notes its arguments.
let calls: Awaited<ReturnType<typeof gitCallLog>>;
beforeAll(async () => {
  calls = await gitCallLog();
});
afterAll(() => calls.restore());

const listings = () => calls.count("ls-files");

/** The listed paths, sorted: what a scan's files are keyed by. */
async function listed(scanner: WorkspaceScanner): Promise<string[]> {
  return [...(await scanner.scan()).files.keys()].sort();
}

// One repository shape with every kind of folder git treats differently: tracked, nested, holding only
// ignored files, empty, ignored as a whole, and unwatched.
const SHAPE: Record<string, string> = {
  ".gitignore": "*.log\ndist/\n",
  "README.md": "readme\n",
  "src/a.ts": "a\n",
  "src/deep/b.ts": "b\n",
  "src/.gitignore": "*.tmp\n",
};
/** Made after the commit: untracked, ignored or unwatched. */
const EXTRA: Record<string, string> = {
  "notes.txt": "untracked\n",
  "logs/x.log": "ignored\n",
  "dist/out.js": "ignored\n",
  "src/c.tmp": "ignored by src/.gitignore\n",
  "node_modules/m/index.js": "unwatched\n",
};

interface Case {
  readonly name: string;
  /** Whether the listing must differ afterwards (so the case proves a change is seen, not assumed). */
  readonly changes: boolean;
  /** No name in a signed folder changed: the listing must still be kept (no git process). */
  readonly kept?: true;
  run(dir: string): Promise<void>;
}

/** Rewrites `file` in place, same inode and size: only its times move. */
async function sameSizeRewrite(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, "utf8");
  expect(to.length).toBe(from.length);
  const at = Buffer.byteLength(text.slice(0, text.indexOf(from)), "utf8");
  const handle = await open(file, "r+");
  await handle.write(to, at);
  await handle.close();
}

const FOLDERS = ["", "src", "src/deep", "logs", "empty", "dist", "node_modules/m"];
const CASES: Case[] = [
  ...FOLDERS.map((folder) => ({
    name: `a new file in ${folder || "the top folder"}`,
    changes: folder !== "dist" && !folder.startsWith("node_modules"),
    // Unwatched folders are not signed: their files are dropped from every scan.
    ...(folder.startsWith("node_modules") ? { kept: true as const } : {}),
    run: (dir: string) => writeFile(join(dir, folder, "new.txt"), "new\n"),
  })),
  ...["README.md", "src/deep/b.ts", "notes.txt", "logs/x.log"].map((file) => ({
    name: `${file} removed`,
    changes: !file.endsWith(".log"),
    run: (dir: string) => rm(join(dir, file)),
  })),
  ...["src/a.ts", "notes.txt"].map((file) => ({
    name: `${file} renamed into another folder`,
    changes: true,
    run: (dir: string) => rename(join(dir, file), join(dir, "src/deep", "moved.ts")),
  })),
  {
    name: "a nested folder made with a file in it",
    changes: true,
    run: async (dir) => {
      await mkdir(join(dir, "new/nested"), { recursive: true });
      await writeFile(join(dir, "new/nested/file.ts"), "x\n");
    },
  },
  {
    name: "a file made in a folder made empty",
    changes: true,
    run: async (dir) => {
      await mkdir(join(dir, "empty/inner"));
      await writeFile(join(dir, "empty/inner/f"), "x\n");
    },
  },
  {
    name: "the top .gitignore rewritten in place, same size (dist/ no longer ignored)",
    changes: true,
    run: (dir) => sameSizeRewrite(join(dir, ".gitignore"), "dist/", "dixt/"),
  },
  {
    name: "a nested .gitignore rewritten in place, same size (*.tmp no longer ignored)",
    changes: true,
    run: (dir) => sameSizeRewrite(join(dir, "src/.gitignore"), "*.tmp", "*.tmq"),
  },
  {
    name: "a .gitignore added where there was none",
    changes: true,
    run: (dir) =>
      writeFile(join(dir, "src/deep/.gitignore"), "b.ts\nnew.txt\n").then(() => rm(join(dir, "notes.txt"))),
  },
  {
    name: ".git/info/exclude appended in place",
    changes: true,
    run: async (dir) => {
      const handle = await open(join(dir, ".git/info/exclude"), "a");
      await handle.write("notes.txt\n");
      await handle.close();
    },
  },
  {
    name: "an ignored file added to the index (git add -f)",
    changes: true,
    run: async (dir) => void gitIn(dir, "add", "-f", "logs/x.log"),
  },
  {
    name: "the index rewritten in place, not through git's lock file (the .git folder unchanged)",
    changes: true,
    run: async (dir) => {
      const index = join(dir, ".git/index");
      const other = join(tmpdir(), `bridle-index-${process.pid}-${Date.now()}`);
      await writeFile(other, await readFile(index));
      execFileSync("git", ["add", "-f", "logs/x.log"], {
        cwd: dir,
        env: { ...process.env, GIT_INDEX_FILE: other, GIT_CONFIG_GLOBAL: "/dev/null" },
      });
      const bytes = await readFile(other);
      await rm(other);
      const handle = await open(index, "r+");
      await handle.write(bytes, 0, bytes.length, 0);
      await handle.truncate(bytes.length);
      await handle.close();
    },
  },
  {
    name: "a tracked file dropped from the index (git rm --cached) and ignored",
    changes: true,
    run: async (dir) => {
      gitIn(dir, "rm", "-q", "--cached", "src/a.ts");
      await sameSizeRewrite(join(dir, "src/.gitignore"), "*.tmp", "a.ts*");
    },
  },
  {
    name: "a folder replaced by a link to another",
    changes: true,
    run: async (dir) => {
      await rm(join(dir, "src/deep"), { recursive: true });
      await symlink("../logs", join(dir, "src/deep"));
    },
  },
  {
    name: "a file's content rewritten (no name changes)",
    changes: false,
    kept: true,
    run: (dir) => writeFile(join(dir, "src/a.ts"), "changed content\n"),
  },
  {
    name: "an ignored file's content rewritten",
    changes: false,
    kept: true,
    run: (dir) => writeFile(join(dir, "dist/out.js"), "rebuilt\n"),
  },
];

describe("a scan keeps git's listing while it provably holds", () => {
  const repos: { dir: string; cleanup: () => Promise<void> }[] = [];
  beforeAll(async () => {
    for (let i = 0; i < CASES.length + 1; i++) {
      const repo = await tempRepo(SHAPE);
      await writeFiles(repo.dir, EXTRA);
      await mkdir(join(repo.dir, "empty"));
      repos.push(repo);
    }
    // Past the quiet window, so each first listing is kept.
    await sleep(2_100);
  }, 60_000);
  afterAll(async () => {
    for (const repo of repos) await repo.cleanup();
  });

  it("asks git once while nothing changes, and what it keeps is git's answer", async () => {
    const dir = (repos[CASES.length] as { dir: string }).dir;
    const scanner = new WorkspaceScanner(dir);
    const before = await listings();
    const first = await listed(scanner);
    expect(await listings()).toBe(before + 1);
    for (let i = 0; i < 5; i++) expect(await listed(scanner)).toEqual(first);
    expect(await listings()).toBe(before + 1);
    expect(first).toEqual([
      ".gitignore",
      "README.md",
      "notes.txt",
      "src/.gitignore",
      "src/a.ts",
      "src/deep/b.ts",
    ]);
  });

  it.each(CASES.map((test, index) => [test.name, test, index] as const))(
    "sees %s",
    async (_name, test, index) => {
      const dir = (repos[index] as { dir: string }).dir;
      const scanner = new WorkspaceScanner(dir);
      const was = await listed(scanner);
      const kept = await listings();
      // Kept: the second scan asks git nothing.
      expect(await listed(scanner)).toEqual(was);
      expect(await listings()).toBe(kept);
      await test.run(dir);
      const now = await listed(scanner);
      const fresh = await listed(new WorkspaceScanner(dir));
      expect(now).toEqual(fresh);
      if (test.changes) expect(now).not.toEqual(was);
      else expect(now).toEqual(was);
      // Nothing git reads changed: the listing was still kept, and only the fresh scanner asked git.
      if (test.kept) expect(await listings()).toBe(kept + 1);
    },
  );
});

// A folder with no git is walked; its walk is kept the same way, on its folders' times alone, and on no
// `.git` appearing in it or above it (then git's answer, with its ignore rules, is what counts).
const PLAIN: Record<string, string> = {
  ".gitignore": "*.log\n",
  "a.txt": "a\n",
  "x.log": "listed while no git is involved\n",
  "src/b.ts": "b\n",
  "src/deep/c.ts": "c\n",
};
const PLAIN_CASES: Case[] = [
  ...["", "src", "src/deep"].map((folder) => ({
    name: `a new file in ${folder || "the top folder"}`,
    changes: true,
    run: (dir: string) => writeFile(join(dir, folder, "new.txt"), "new\n"),
  })),
  { name: "a file removed", changes: true, run: (dir) => rm(join(dir, "src/deep/c.ts")) },
  {
    name: "a folder renamed",
    changes: true,
    run: (dir) => rename(join(dir, "src/deep"), join(dir, "src/moved")),
  },
  { name: "the folder made a repository", changes: true, run: async (dir) => void gitIn(dir, "init", "-q") },
  {
    name: "the folder above made a repository",
    changes: true,
    run: async (dir) => void gitIn(join(dir, ".."), "init", "-q"),
  },
  {
    name: "a file's content rewritten",
    changes: false,
    kept: true,
    run: (dir) => writeFile(join(dir, "src/b.ts"), "changed\n"),
  },
];

describe("a scan keeps a walked folder's listing while it provably holds", () => {
  const bases: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < PLAIN_CASES.length; i++) {
      const base = await mkdtemp(join(tmpdir(), "bridle-plain-"));
      await writeFiles(join(base, "work"), PLAIN);
      bases.push(base);
    }
    await sleep(2_100);
  }, 60_000);
  afterAll(async () => {
    for (const base of bases) await rm(base, { recursive: true, force: true });
  });

  it.each(PLAIN_CASES.map((test, index) => [test.name, test, index] as const))(
    "sees %s",
    async (_name, test, index) => {
      const dir = join(bases[index] as string, "work");
      const scanner = new WorkspaceScanner(dir);
      const was = await listed(scanner);
      expect(was).toContain("x.log");
      expect(await listed(scanner)).toEqual(was);
      await test.run(dir);
      // A walk starts no process: whether the kept one was used is what its signature answered.
      const holds = vi.spyOn(ListingSignature.prototype, "holds");
      let answers: unknown[] = [];
      const now = await listed(scanner).finally(() => {
        answers = holds.mock.results.map((result) => result.value);
        holds.mockRestore();
      });
      expect(answers).toEqual([test.kept === true]);
      const fresh = await listed(new WorkspaceScanner(dir));
      expect(now).toEqual(fresh);
      if (test.changes) expect(now).not.toEqual(was);
      else expect(now).toEqual(was);
    },
  );
});

describe("a scan asks git every time when the listing cannot be pinned down", () => {
  it("a repository changed within the quiet window", async () => {
    const repo = await tempRepo(SHAPE);
    try {
      const scanner = new WorkspaceScanner(repo.dir);
      const before = await listings();
      await scanner.scan();
      await scanner.scan();
      expect(await listings()).toBe(before + 2);
    } finally {
      await repo.cleanup();
    }
  });

  it("a .git that is a file (a linked work tree), and more folders than are checked", async () => {
    const main = await tempRepo(SHAPE);
    const wide = await tempRepo(SHAPE);
    const trees = await mkdtemp(join(tmpdir(), "bridle-worktree-"));
    try {
      const linked = join(trees, "linked");
      gitIn(main.dir, "worktree", "add", "-q", linked);
      for (let i = 0; i <= MAX_SIGNED_FOLDERS; i++) mkdirSync(join(wide.dir, `d${i}`));
      await sleep(2_100);
      for (const dir of [linked, wide.dir]) {
        const scanner = new WorkspaceScanner(dir);
        const before = await listings();
        const take = vi.spyOn(ListingSignature, "take");
        let signed: unknown[] = [];
        try {
          for (let i = 0; i < 3; i++) await scanner.scan();
        } finally {
          signed = take.mock.results.map((result) => result.value);
          take.mockRestore();
        }
        expect(await listings()).toBe(before + 3);
        // Too many folders is found out on the first scan; the walk that finds it is not repeated.
        // (Twice: the second time without the folders ignore rules match, of which it has none.)
        if (dir === wide.dir) expect(signed).toEqual(["too many", "too many"]);
        else expect(signed).toEqual([undefined, undefined, undefined]);
      }
    } finally {
      await main.cleanup();
      await wide.cleanup();
      await rm(trees, { recursive: true, force: true });
    }
  });
});

describe("a repository whose ignored folders are more than are signed", () => {
  it("is signed without them, and sees a rule that stops ignoring them", async () => {
    const repo = await tempRepo({ ".gitignore": "target/\n*.log\n", "src/a.ts": "a\n" });
    const other = await tempRepo({ ".gitignore": "target/\n*.log\n", "src/a.ts": "a\n" });
    try {
      for (const dir of [repo.dir, other.dir]) {
        for (let i = 0; i <= MAX_SIGNED_FOLDERS; i++)
          mkdirSync(join(dir, `target/d${i}`), { recursive: true });
        await writeFiles(dir, { "target/d0/out.o": "built\n", "logs/a.log": "only ignored files\n" });
      }
      await sleep(2_100);
      // A folder holding only ignored files is still signed: a file that is not ignored may appear there.
      const watcher = new WorkspaceScanner(other.dir);
      expect(await listed(watcher)).toEqual([".gitignore", "src/a.ts"]);
      await writeFile(join(other.dir, "logs/notes.txt"), "seen\n");
      expect(await listed(watcher)).toEqual([".gitignore", "logs/notes.txt", "src/a.ts"]);

      const scanner = new WorkspaceScanner(repo.dir);
      const first = await listed(scanner);
      expect(first).toEqual([".gitignore", "src/a.ts"]);
      const kept = await listings();
      // A build writing into an ignored folder changes nothing git lists: the listing is kept.
      await writeFile(join(repo.dir, "target/d1/new.o"), "built\n");
      expect(await listed(scanner)).toEqual(first);
      expect(await listings()).toBe(kept);
      // The rule rewritten in place, same size, while the listing is kept: target is no longer ignored.
      await sameSizeRewrite(join(repo.dir, ".gitignore"), "target/", "targex/");
      const now = await listed(scanner);
      expect(await listings()).toBe(kept + 1);
      expect(now).toEqual(await listed(new WorkspaceScanner(repo.dir)));
      expect(now).toContain("target/d0/out.o");
      expect(now).toContain("target/d1/new.o");
    } finally {
      await repo.cleanup();
      await other.cleanup();
    }
  });
});

// A workspace that is a folder inside a repository (a package of a monorepo): git lists only what is under
// it, by the repository's index and the ignore files of the folders above it too.
const MONO: Record<string, string> = {
  ".gitignore": "*.log\n",
  "packages/.gitignore": "*.tmp\n",
  "packages/app/src/a.ts": "a\n",
  "packages/app/README.md": "app\n",
  "packages/lib/b.ts": "b\n",
};
const MONO_EXTRA: Record<string, string> = {
  "packages/app/x.log": "ignored by the top .gitignore\n",
  "packages/app/y.tmp": "ignored by packages/.gitignore\n",
};
const SUB_CASES: Case[] = [
  {
    name: "a new file in the workspace",
    changes: true,
    run: (dir) => writeFile(join(dir, "src/new.ts"), "new\n"),
  },
  {
    name: "the top .gitignore rewritten in place, same size",
    changes: true,
    run: (dir) => sameSizeRewrite(join(dir, "../../.gitignore"), "*.log", "*.lox"),
  },
  {
    name: "the .gitignore of the folder above rewritten in place, same size",
    changes: true,
    run: (dir) => sameSizeRewrite(join(dir, "../.gitignore"), "*.tmp", "*.tmx"),
  },
  {
    name: "an ignored file added to the index from the top",
    changes: true,
    run: async (dir) => void gitIn(join(dir, "../.."), "add", "-f", "packages/app/x.log"),
  },
  {
    name: "a repository made in the folder between",
    changes: true,
    run: async (dir) => void gitIn(join(dir, ".."), "init", "-q"),
  },
  {
    name: "a file added in a sibling package (outside the workspace)",
    changes: false,
    run: (dir) => writeFile(join(dir, "../lib/c.ts"), "c\n"),
  },
];

describe("a workspace inside a repository keeps its listing while it provably holds", () => {
  const repos: { dir: string; cleanup: () => Promise<void> }[] = [];
  beforeAll(async () => {
    for (let i = 0; i < SUB_CASES.length + 2; i++) {
      const repo = await tempRepo(MONO);
      await writeFiles(repo.dir, MONO_EXTRA);
      repos.push(repo);
    }
    // One reached through a link, one with a `.git` folder that git passes over.
    const linked = repos[SUB_CASES.length] as { dir: string };
    await symlink(join(linked.dir, "packages/app"), join(linked.dir, "app-link"));
    // (Its HEAD reads right, but with no objects or refs folder git does not take it for a repository.)
    await writeFiles((repos[SUB_CASES.length + 1] as { dir: string }).dir, {
      "packages/app/.git/HEAD": "ref: refs/heads/main\n",
    });
    await sleep(2_100);
  }, 60_000);
  afterAll(async () => {
    for (const repo of repos) await repo.cleanup();
  });

  it.each(SUB_CASES.map((test, index) => [test.name, test, index] as const))(
    "sees %s",
    async (_name, test, index) => {
      const dir = join((repos[index] as { dir: string }).dir, "packages/app");
      const scanner = new WorkspaceScanner(dir);
      const was = await listed(scanner);
      expect(was).toEqual(["README.md", "src/a.ts"]);
      const kept = await listings();
      expect(await listed(scanner)).toEqual(was);
      expect(await listings()).toBe(kept);
      await test.run(dir);
      const now = await listed(scanner);
      expect(now).toEqual(await listed(new WorkspaceScanner(dir)));
      if (test.changes) expect(now).not.toEqual(was);
      else expect(now).toEqual(was);
    },
  );

  it("is kept when reached through a link", async () => {
    const dir = join((repos[SUB_CASES.length] as { dir: string }).dir, "app-link");
    const scanner = new WorkspaceScanner(dir);
    const was = await listed(scanner);
    expect(was).toEqual(["README.md", "src/a.ts"]);
    const kept = await listings();
    expect(await listed(scanner)).toEqual(was);
    expect(await listings()).toBe(kept);
    // The link pointed at another package: nothing under the first one changed, but the listing did.
    const link = join((repos[SUB_CASES.length] as { dir: string }).dir, "app-link");
    await rm(link);
    await symlink(join((repos[SUB_CASES.length] as { dir: string }).dir, "packages/lib"), link);
    expect(await listed(scanner)).toEqual(["b.ts"]);
  });

  it("is asked every time past a `.git` that git does not take for a repository", async () => {
    const dir = join((repos[SUB_CASES.length + 1] as { dir: string }).dir, "packages/app");
    const scanner = new WorkspaceScanner(dir);
    const before = await listings();
    const was = await listed(scanner);
    // git passed over the empty .git and listed from the top: x.log stays ignored.
    expect(was).toEqual(["README.md", "src/a.ts"]);
    expect(await listed(scanner)).toEqual(was);
    expect(await listings()).toBe(before + 2);
  });
});
