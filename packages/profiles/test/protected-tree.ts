import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PROTECTED_PATH_RULES } from "@bridle/core";

/** A path a writer is aimed at, and the path core judges it as (the file it would really change). */
export interface ProtectedCase {
  readonly path: string;
  /** Where the write would land: the path itself, or where its links lead. */
  readonly judgedAs: string;
  /** The file exists, with this first line (edits aim at it); undefined when the write would create it. */
  readonly firstLine: string | undefined;
}

// What lives inside a protected folder, as git lays it out: each one chooses what git runs or which
// repository it uses at the user's next command.
const INSIDE_PROTECTED_FOLDER = [
  "config",
  "hooks/pre-commit",
  "info/attributes",
  "commondir",
  "HEAD",
  "config.worktree",
  "modules/m/config",
  "objects/info/alternates",
  "worktrees/w/gitdir",
];
// Files a write would create, folders missing on the way included.
const NEW_INSIDE_PROTECTED_FOLDER = ["hooks/post-merge", "modules/n/config"];

/**
 * The protected paths every writer is tried on, derived from core's rules so a rule added there is
 * tried here too: each protected folder's git files (and a nested one, and a gitfile named like it),
 * each settings-name prefix, the agent's folder but its data folders, the user's config folder, a
 * folder link into `.git` and a dangling link whose target would be a new hook.
 */
export function protectedCasePaths(userConfig: string): {
  existing: string[];
  created: string[];
  linked: { path: string; judgedAs: string; existing: boolean }[];
} {
  const rules = PROTECTED_PATH_RULES;
  const existing: string[] = [];
  const created: string[] = [];
  for (const folder of rules.folders) {
    for (const inside of INSIDE_PROTECTED_FOLDER) existing.push(`${folder}/${inside}`);
    for (const inside of NEW_INSIDE_PROTECTED_FOLDER) created.push(`${folder}/${inside}`);
    existing.push(`sub/${folder}`, `nested/${folder}/config`);
  }
  for (const prefix of rules.namePrefixes) {
    existing.push(`${prefix}json`, `pkg/${prefix}ts`);
    created.push(`${prefix}yaml`);
  }
  existing.push(`${rules.agentFolder}/agents/x.md`, `${rules.agentFolder}/settings.json`);
  created.push(`${rules.agentFolder}/agents/new/y.md`);
  existing.push(`${userConfig}/trust.json`);
  created.push(`${userConfig}/approval-secret`);
  const git = rules.folders[0] as string;
  const linked = [
    { path: "gitlink/config", judgedAs: `${git}/config`, existing: true },
    { path: "gitlink/hooks/pre-commit", judgedAs: `${git}/hooks/pre-commit`, existing: true },
    { path: "hook-link", judgedAs: `${git}/hooks/post-checkout`, existing: false },
  ];
  return { existing, created, linked };
}

/** A real repository in `dir` with every protected file of the list, and the two links. */
export async function buildProtectedTree(dir: string, userConfig: string): Promise<ProtectedCase[]> {
  // No template: git's sample hooks would only make every snapshot slower.
  execFileSync("git", ["init", "-q", "--template=", dir]);
  execFileSync("git", ["init", "-q", "--template=", join(dir, "nested")]);
  const { existing, created, linked } = protectedCasePaths(userConfig);
  const cases: ProtectedCase[] = [];
  for (const path of existing) {
    const absolute = join(dir, path);
    await mkdir(dirname(absolute), { recursive: true });
    if (!(await lstat(absolute).catch(() => undefined))) {
      // sub/.git is a gitfile: it names the repository git uses there.
      const content = path.startsWith("sub/") ? "gitdir: ../.git/modules/m\n" : `line one of ${path}\n`;
      await writeFile(absolute, content);
    }
    const firstLine = (await readFile(absolute, "utf8")).split("\n")[0] as string;
    cases.push({ path, judgedAs: path, firstLine });
  }
  for (const path of created) cases.push({ path, judgedAs: path, firstLine: undefined });
  const git = PROTECTED_PATH_RULES.folders[0] as string;
  await symlink(git, join(dir, "gitlink"));
  await symlink(`${git}/hooks/post-checkout`, join(dir, "hook-link"));
  for (const link of linked) {
    const firstLine = link.existing
      ? ((await readFile(join(dir, link.path), "utf8")).split("\n")[0] as string)
      : undefined;
    cases.push({ path: link.path, judgedAs: link.judgedAs, firstLine });
  }
  return cases;
}

/** Every entry under `dir`, not following links: kind, mode, and the bytes' hash or the link's target. */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (folder: string, prefix: string): Promise<void> => {
    for (const name of (await readdir(folder)).sort()) {
      const absolute = join(folder, name);
      const rel = prefix + name;
      const stats = await lstat(absolute);
      const mode = (stats.mode & 0o7777).toString(8);
      if (stats.isSymbolicLink()) out.set(rel, `link ${await readlink(absolute)}`);
      else if (stats.isDirectory()) {
        out.set(rel, `dir ${mode}`);
        await walk(absolute, `${rel}/`);
      } else {
        const hash = createHash("sha256")
          .update(await readFile(absolute))
          .digest("hex");
        out.set(rel, `file ${mode} ${hash}`);
      }
    }
  };
  await walk(dir, "");
  return out;
}
