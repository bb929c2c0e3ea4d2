import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { discoverRepository, type FoundRepository } from "@bridle/core/node";

/**
 * A repository's own configuration is data the repository brings (a cloned or unpacked `.git`), and git
 * obeys it: `core.pager`, `core.fsmonitor`, aliases, `diff.external`, textconv and filter drivers,
 * `include.path`, hooks such as post-index-change (which `git status` triggers when it refreshes the
 * index) and submodules (whose own config runs when status or diff looks inside them). A read-only git
 * command is allowed only when the repository's config holds nothing but keys known to run nothing.
 */

// Keys (section.key, lower case) that run nothing when a read-only command reads them.
const PLAIN_KEYS = new Set([
  "core.repositoryformatversion",
  "core.filemode",
  "core.bare",
  "core.logallrefupdates",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.symlinks",
  "core.autocrlf",
  "core.eol",
  "core.safecrlf",
  "core.sparsecheckout",
  "core.sparsecheckoutcone",
  "core.untrackedcache",
  "core.commitgraph",
  "core.quotepath",
  "core.abbrev",
  "core.checkstat",
  "core.trustctime",
  "core.multipackindex",
  "core.preloadindex",
  "core.compression",
  "core.loosecompression",
  "core.bigfilethreshold",
  "core.whitespace",
  "core.warnambiguousrefs",
  "core.protecthfs",
  "core.protectntfs",
  "core.longpaths",
  "core.sharedrepository",
  "core.hookspath",
  "extensions.objectformat",
  "extensions.worktreeconfig",
  "extensions.refstorage",
  "user.name",
  "user.email",
  "user.signingkey",
  "init.defaultbranch",
  "pull.rebase",
  "pull.ff",
  "push.default",
  "push.autosetupremote",
  "fetch.prune",
  "fetch.prunetags",
  "fetch.writecommitgraph",
  "gc.auto",
  "gc.autodetach",
  "gc.writecommitgraph",
  "pack.threads",
  "index.version",
  "index.threads",
  "feature.manyfiles",
  "commit.gpgsign",
  "tag.gpgsign",
  "rerere.enabled",
  "rerere.autoupdate",
  "merge.conflictstyle",
  "merge.ff",
  "merge.renames",
  "diff.renames",
  "diff.algorithm",
  "diff.mnemonicprefix",
  "diff.noprefix",
  "diff.context",
  "diff.interhunkcontext",
  "diff.indentheuristic",
  "diff.colormoved",
  "diff.suppressblankempty",
  "diff.statgraphwidth",
  "diff.renamelimit",
  "log.date",
  "log.decorate",
  "log.abbrevcommit",
  "log.showroot",
  "status.short",
  "status.branch",
  "status.showstash",
  "status.showuntrackedfiles",
  "status.relativepaths",
  "status.aheadbehind",
  "status.renames",
  "lfs.repositoryformatversion",
  "maintenance.auto",
  "maintenance.strategy",
  "branch.autosetupmerge",
  "branch.autosetuprebase",
  "branch.sort",
  "column.ui",
  "grep.linenumber",
  "grep.patterntype",
  "grep.extendedregexp",
  "blame.date",
  "blame.coloring",
]);

// Sections whose keys only choose colours or hints.
const PLAIN_SECTIONS = new Set(["advice", "color"]);

// Keys of named subsections ([remote "origin"] url = …), by section.
const SUBSECTION_KEYS: Record<string, ReadonlySet<string>> = {
  remote: new Set([
    "url",
    "pushurl",
    "fetch",
    "push",
    "tagopt",
    "prune",
    "prunetags",
    "mirror",
    "skipfetchall",
  ]),
  branch: new Set(["remote", "merge", "rebase", "pushremote", "description"]),
  submodule: new Set(["url", "active", "branch"]),
  diff: new Set(["xfuncname", "funcname", "binary", "wordregex"]),
};

// `git lfs install --local` writes these exact values: they run git-lfs, which the user installed.
const LFS_FILTER: Record<string, string> = {
  clean: "git-lfs clean -- %f",
  smudge: "git-lfs smudge -- %f",
  process: "git-lfs filter-process",
  required: "true",
};

interface ConfigEntry {
  readonly section: string;
  readonly subsection: string | undefined;
  readonly key: string;
  readonly value: string;
}

/** Parse a git config file into entries, or throw when a line is not understood. */
export function parseGitConfig(text: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let section = "";
  let subsection: string | undefined;
  const lines = text.replace(/\\\r?\n/g, "").split(/\r?\n/);
  for (const raw of lines) {
    let line = raw.trim();
    if (line.startsWith("[")) {
      const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
      if (!header) throw new Error(`config header not understood: ${line.slice(0, 40)}`);
      const name = (header[1] as string).toLowerCase();
      const dot = name.indexOf(".");
      section = dot === -1 ? name : name.slice(0, dot);
      subsection =
        header[2] !== undefined
          ? header[2].replace(/\\(.)/g, "$1")
          : dot === -1
            ? undefined
            : name.slice(dot + 1);
      line = line.slice(header[0].length).trim();
    }
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!entry || section === "") throw new Error(`config line not understood: ${line.slice(0, 40)}`);
    entries.push({
      section,
      subsection,
      key: (entry[1] as string).toLowerCase(),
      value: entry[2] === undefined ? "true" : configValue(entry[2]),
    });
  }
  return entries;
}

function configValue(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string;
    if (char === "\\") {
      const next = raw[++i] ?? "";
      out += next === "n" ? "\n" : next === "t" ? "\t" : next;
    } else if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "#" || char === ";")) break;
    else out += char;
  }
  return out.trim();
}

function entryRisk(entry: ConfigEntry): string | undefined {
  const { section, subsection, key, value } = entry;
  const name = `${section}${subsection !== undefined ? `.${subsection}` : ""}.${key}`;
  if (PLAIN_SECTIONS.has(section)) return undefined;
  if (subsection === undefined) {
    if (section === "core" && key === "fsmonitor" && value === "false") return undefined;
    return PLAIN_KEYS.has(`${section}.${key}`) ? undefined : name;
  }
  if (section === "filter" && subsection === "lfs" && LFS_FILTER[key] === value) return undefined;
  return SUBSECTION_KEYS[section]?.has(key) ? undefined : name;
}

/** What a repository holds that matters to a read-only git command. */
export interface RepositoryFacts {
  /** Why git could run a program the repository chose, if it could. */
  readonly risk: string | undefined;
  /** A tracked file the secret rule covers: diff, show, log -p and grep can print its contents. */
  readonly trackedSecret: string | undefined;
  /** The repository git would use, when there is one. */
  readonly repository: FoundRepository | undefined;
}

export function inspectRepository(cwd: string, isSecret: (path: string) => boolean): RepositoryFacts {
  let trackedSecret: string | undefined;
  let repository: FoundRepository | undefined;
  try {
    repository = discoverRepository(cwd);
  } catch (error) {
    return {
      risk: `the repository git would use could not be found (${(error as Error).message.slice(0, 80)})`,
      trackedSecret,
      repository,
    };
  }
  const risk = repositoryRisk(repository, (path) => {
    if (trackedSecret === undefined && isSecret(path)) trackedSecret = path;
  });
  return { risk, trackedSecret, repository };
}

/**
 * Why git could run a program the repository chose, or undefined when its config, hooks and index hold
 * nothing that does. Unreadable or unparsable files are reasons too (fail closed).
 */
function repositoryRisk(
  found: FoundRepository | undefined,
  seen: (path: string) => void,
): string | undefined {
  if (!found) return undefined;
  const { gitDir, top } = found;
  try {
    const common = found.commonDir;
    let hooksPath: string | undefined;
    for (const file of new Set([
      join(common, "config"),
      join(common, "config.worktree"),
      join(gitDir, "config.worktree"),
    ])) {
      if (!existsSync(file)) continue;
      for (const entry of parseGitConfig(readFileSync(file, "utf8"))) {
        const risk = entryRisk(entry);
        if (risk) return `the repository's config sets ${risk}, which can make git run a program`;
        if (entry.section === "core" && entry.key === "hookspath") hooksPath = entry.value;
      }
    }
    const hooks = hooksPath
      ? isAbsolute(hooksPath)
        ? hooksPath
        : join(top, hooksPath)
      : join(common, "hooks");
    if (existsSync(join(hooks, "post-index-change")))
      return "the repository has a post-index-change hook, which git status and diff can run";
    if (existsSync(join(common, "modules")) || existsSync(join(top, ".gitmodules")))
      return "the repository has submodules, whose own config git runs when it looks inside them";
    const index = join(gitDir, "index");
    if (existsSync(index)) {
      const scan = scanIndex(index);
      for (const path of scan.paths) seen(path);
      if (scan.problem) return scan.problem;
    }
    return undefined;
  } catch (error) {
    return `the repository's git files could not be read (${(error as Error).message.slice(0, 80)})`;
  }
}

// Index scans by file identity: a large repository's index is megabytes, and it rarely changes between checks.
const scans = new Map<string, { stamp: string; problem: string | undefined; paths: string[] }>();

function scanIndex(file: string): { problem: string | undefined; paths: readonly string[] } {
  const stats = statSync(file, { bigint: true });
  const stamp = `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
  const known = scans.get(file);
  if (known?.stamp === stamp) return known;
  const paths: string[] = [];
  const problem = indexProblem(readFileSync(file), (path) => paths.push(path));
  if (scans.size > 64) scans.clear();
  const scan = { stamp, problem, paths };
  scans.set(file, scan);
  return scan;
}

/** Gitlinks (submodules) or a split index in the index file: git would look inside other repositories. */
export function indexProblem(data: Buffer, seen: (path: string) => void = () => {}): string | undefined {
  if (data.length < 12 || data.toString("latin1", 0, 4) !== "DIRC") return "the git index is not understood";
  const version = data.readUInt32BE(4);
  const count = data.readUInt32BE(8);
  if (version < 2 || version > 4) return "the git index version is not understood";
  // The entry's object id is SHA-1 (20 bytes) or SHA-256 (32): try SHA-1, then SHA-256.
  for (const hashLength of [20, 32]) {
    const paths: string[] = [];
    const result = scanEntries(data, version, count, hashLength, paths);
    if (result === undefined) for (const path of paths) seen(path);
    if (result !== "misparsed") return result;
  }
  return "the git index is not understood";
}

function scanEntries(
  data: Buffer,
  version: number,
  count: number,
  hashLength: number,
  paths: string[],
): string | undefined | "misparsed" {
  let offset = 12;
  let path = "";
  for (let i = 0; i < count; i++) {
    const fixed = 40 + hashLength + 2;
    if (offset + fixed > data.length) return "misparsed";
    const mode = data.readUInt32BE(offset + 24);
    const flags = data.readUInt16BE(offset + 40 + hashLength);
    let cursor = offset + fixed + (version >= 3 && flags & 0x4000 ? 2 : 0);
    if (mode === 0o160000)
      return "the repository has a submodule (a gitlink in its index), whose config git runs";
    if (![0o100644, 0o100755, 0o120000, 0o040000].includes(mode)) return "misparsed";
    if (version === 4) {
      // The path is the previous one less N bytes (an offset varint), then a NUL-terminated suffix.
      let strip = (data[cursor] as number) & 0x7f;
      while (cursor < data.length && (data[cursor] as number) & 0x80) {
        cursor++;
        strip = ((strip + 1) << 7) | ((data[cursor] as number) & 0x7f);
      }
      cursor++;
      const end = data.indexOf(0, cursor);
      if (end === -1 || strip > path.length) return "misparsed";
      path = path.slice(0, path.length - strip) + data.toString("utf8", cursor, end);
      cursor = end + 1;
    } else {
      const end = data.indexOf(0, cursor);
      if (end === -1) return "misparsed";
      path = data.toString("utf8", cursor, end);
      const length = end - offset;
      cursor = offset + Math.ceil((length + 1) / 8) * 8;
    }
    paths.push(path);
    offset = cursor;
  }
  // Extensions: a 4-byte signature and a 4-byte size each, then the trailing checksum.
  let cursor = offset;
  while (cursor + 8 <= data.length - hashLength) {
    const signature = data.toString("latin1", cursor, cursor + 4);
    const size = data.readUInt32BE(cursor + 4);
    if (signature === "link") return "the git index is split; its shared part is not checked";
    if (!/^[A-Za-z]{4}$/.test(signature)) return "misparsed";
    cursor += 8 + size;
  }
  return undefined;
}
