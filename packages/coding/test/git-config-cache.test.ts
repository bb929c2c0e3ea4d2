// The overlay keeps a repository's listed program keys between git commands while its config files are
// provably unchanged. Every way a command can change what git reads must still be seen.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { git } from "../src/git.js";
import { gitCallLog, gitIn, tempRepo, writeFiles } from "./repo.js";

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

/** A repository whose a.txt is modified and goes through filter "evil"; and where a marker would land. */
async function armed() {
  const repo = await tempRepo({ "a.txt": "one\n", ".gitattributes": "*.txt filter=evil\n" });
  cleanups.push(repo.cleanup);
  const markers = await mkdtemp(join(tmpdir(), "bridle-git-cache-"));
  cleanups.push(() => rm(markers, { recursive: true, force: true }));
  await writeFiles(repo.dir, { "a.txt": "one\ntwo\n" });
  const marker = join(markers, "ran");
  const evil = `[filter "evil"]\n\tclean = touch ${marker}; cat\n`;
  // Past the quiet window, so the first listing is kept.
  await sleep(2_100);
  await git(repo.dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]);
  return { dir: repo.dir, marker, evil };
}

/** Plain git does run the filter: the trap is real. */
function provesArmed(dir: string, marker: string): void {
  spawnSync("git", ["diff", "HEAD"], {
    cwd: dir,
    stdio: "ignore",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  expect(existsSync(marker)).toBe(true);
}

describe("program keys listed once and kept while the config is unchanged", () => {
  it("sees a filter added through git config (a new file by rename)", async () => {
    const { dir, marker } = await armed();
    gitIn(dir, "config", "filter.evil.clean", `touch ${marker}; cat`);
    await git(dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
    expect(existsSync(marker)).toBe(false);
    provesArmed(dir, marker);
  });

  it("sees a filter appended in place", async () => {
    const { dir, marker, evil } = await armed();
    await appendFile(join(dir, ".git", "config"), evil);
    await git(dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
    expect(existsSync(marker)).toBe(false);
    provesArmed(dir, marker);
  });

  it("sees a same-size rewrite in place (same inode, same size: only the change time differs)", async () => {
    const repo = await tempRepo({ "a.txt": "one\n", ".gitattributes": "*.txt filter=evil\n" });
    cleanups.push(repo.cleanup);
    const markers = await mkdtemp(join(tmpdir(), "bridle-git-cache-"));
    cleanups.push(() => rm(markers, { recursive: true, force: true }));
    const marker = join(markers, "ran");
    const config = join(repo.dir, ".git", "config");
    // A harmless section that one byte turns into a filter.
    await appendFile(config, `[filtxr "evil"]\n\tclean = touch ${marker}; cat\n`);
    await writeFiles(repo.dir, { "a.txt": "one\ntwo\n" });
    await sleep(2_100);
    await git(repo.dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]);
    const text = await readFile(config, "utf8");
    const at = Buffer.byteLength(text.slice(0, text.indexOf("filtxr")), "utf8");
    const handle = await open(config, "r+");
    await handle.write("filter", at);
    await handle.close();
    await git(repo.dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
    expect(existsSync(marker)).toBe(false);
    provesArmed(repo.dir, marker);
  });

  it("lists every time when the config includes another file", async () => {
    const { dir, marker, evil } = await armed();
    await appendFile(join(dir, ".git", "config"), "[include]\n\tpath = extra.conf\n");
    await writeFile(join(dir, ".git", "extra.conf"), "");
    await sleep(2_100);
    await git(dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]);
    // Only the included file changes: no signature of .git/config could see it.
    await writeFile(join(dir, ".git", "extra.conf"), evil);
    await git(dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
    expect(existsSync(marker)).toBe(false);
    provesArmed(dir, marker);
  });

  it("lists every time when .git redirects elsewhere (commondir)", async () => {
    const { dir, marker, evil } = await armed();
    const common = await mkdtemp(join(tmpdir(), "bridle-git-common-"));
    cleanups.push(() => rm(common, { recursive: true, force: true }));
    execFileSync("cp", ["-a", `${join(dir, ".git")}/.`, common]);
    await writeFile(join(dir, ".git", "commondir"), common);
    await sleep(2_100);
    await git(dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
    await appendFile(join(common, "config"), evil);
    await git(dir, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a workspace inside the repository", () => {
  it("keeps the listing, and sees a filter appended in place to the top's config", async () => {
    const calls = await gitCallLog();
    try {
      const { dir, marker, evil } = await armed();
      const inside = join(dir, "sub");
      await writeFiles(dir, { "sub/notes.md": "notes\n" });
      await sleep(2_100);
      const diff = () =>
        git(inside, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
      await diff();
      const listed = await calls.count("--list");
      await diff();
      await diff();
      // Listed once from the sub-folder, then kept.
      expect(await calls.count("--list")).toBe(listed);
      await appendFile(join(dir, ".git", "config"), evil);
      await diff();
      expect(existsSync(marker)).toBe(false);
      provesArmed(dir, marker);
    } finally {
      await calls.restore();
    }
  });

  it("lists every time past a `.git` that git passes over, and reads the config git reads", async () => {
    const { dir, marker, evil } = await armed();
    // HEAD reads right, but with no objects or refs folder git looks further up, to the armed repository.
    await writeFiles(dir, { "sub/.git/HEAD": "ref: refs/heads/main\n", "sub/.git/config": "" });
    await sleep(2_100);
    const inside = join(dir, "sub");
    await git(inside, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
    await appendFile(join(dir, ".git", "config"), evil);
    await git(inside, ["diff", "--no-ext-diff", "--no-textconv", "HEAD"]).catch(() => undefined);
    expect(existsSync(marker)).toBe(false);
    provesArmed(dir, marker);
  });
});
