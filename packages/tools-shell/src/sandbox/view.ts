import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { isWithin } from "@bridle/core";
import type { FoundMount } from "./agent-config.js";
import { emptyFile } from "./empty-file.js";

/**
 * What a sandboxed command sees of the host, built up from nothing: only the system trees (read-only),
 * the workspace roots (writable, their agent configuration read-only, their secrets emptied) and what
 * the caller lists.
 * Everything else — the home folder, other users' homes, /root, /run and /var/run (the host's Unix
 * sockets: dbus, ssh-agent, docker, X11), /srv, /var, /mnt, /media — is simply absent.
 */
export interface SandboxView {
  /** Host folders visible read-only, beyond the system trees (toolchains, skill folders). */
  readonly readable?: readonly string[];
  /** Host folders visible and writable, beyond the workspace roots (a package cache). */
  readonly writable?: readonly string[];
  /** Files or folders inside the workspace kept read-only (an MCP configuration, a skills folder). */
  readonly protect?: readonly string[];
  /** Folders or files to hide even where the rest is visible. */
  readonly hide?: readonly string[];
}

// Programs, libraries and their configuration: what a command needs to run at all.
export const SYSTEM_TREES = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/nix",
];

export interface ViewRequest {
  readonly writableRoots: readonly string[];
  readonly network: boolean;
  /** Paths (files or folders) to replace with something empty (the root-only files of root-only.ts). */
  readonly masked?: readonly string[];
  /** Mounts over what the trees hold (protected paths, secrets): computed by `treeMounts`, by depth. */
  readonly found?: readonly FoundMount[];
}

/** The bwrap arguments that build the file system of one command. */
export function viewArgs(view: SandboxView, request: ViewRequest): string[] {
  const args: string[] = [];
  for (const tree of SYSTEM_TREES) {
    const kind = kindOf(tree);
    // Merged /usr (/bin -> usr/bin): the same link inside keeps every path identical inside and out.
    if (kind === "link") args.push("--symlink", readlinkSync(tree), tree);
    else if (kind === "dir") args.push("--ro-bind", tree, tree);
  }
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run");
  args.push("--symlink", "../run", "/var/run");
  if (request.network) args.push(...resolverArgs());
  // An empty home, so tools that write dot-files there work; nothing of the real one unless allowed.
  const home = homedir();
  const ownHome = isOwnHome(home);
  if (ownHome) {
    args.push("--tmpfs", home);
    for (const path of pathEntriesIn(home)) args.push("--ro-bind", path, path);
  }
  for (const path of view.readable ?? []) if (existsSync(path)) args.push("--ro-bind", path, path);
  for (const path of view.writable ?? []) if (existsSync(path)) args.push("--bind", path, path);
  for (const root of request.writableRoots) args.push("--bind", root, root);
  // A read-only mount is also a mount point: it cannot be renamed or removed, so `.git` cannot be moved
  // aside for a folder with other hooks.
  for (const mount of request.found ?? []) {
    if (mount.mode === "masked") args.push(...maskArgs(mount.path, mount.kind));
    else args.push(mount.mode === "read-only" ? "--ro-bind" : "--bind", mount.path, mount.path);
  }
  // A workspace that holds the home folder (an agent started in ~) would show its credential stores again.
  const exposedHome = ownHome && request.writableRoots.some((root) => isWithin(root, home));
  const credentials = exposedHome ? HOME_CREDENTIALS.map((name) => join(home, name)) : [];
  for (const path of [...(request.masked ?? []), ...credentials, ...(view.hide ?? [])])
    args.push(...maskArgs(path));
  return args;
}

// A home of "/" or inside a system tree (service accounts) is not replaced: that would hide the system.
function isOwnHome(home: string): boolean {
  return isAbsolute(home) && home !== "/" && !SYSTEM_TREES.some((tree) => isWithin(tree, home));
}

function maskArgs(path: string, known?: "dir" | "file"): string[] {
  const kind = known ?? kindOf(path);
  if (kind === "dir") return ["--tmpfs", path, "--remount-ro", path];
  if (kind === "file") return ["--ro-bind", emptyFile(), path];
  return [];
}

function kindOf(path: string): "dir" | "file" | "link" | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return "link";
    return stat.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

// Credential stores of a home folder, hidden when the workspace itself contains the home folder.
export const HOME_CREDENTIALS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".config/gcloud",
  ".config/gh",
  ".config/bridle",
  ".local/share/keyrings",
  ".password-store",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".pgpass",
  ".cargo/credentials.toml",
  ".cargo/credentials",
];

// Per-user toolchain managers whose folders hold programs and their runtimes, not credentials. When PATH
// leads into one, the whole folder is shown (read-only): a pyenv or rustup shim needs the rest of it.
// ~/.cargo and ~/.local are not here: credentials.toml and keyrings live beside their bin folders.
export const HOME_TOOLCHAINS = [
  ".pyenv",
  ".nvm",
  ".rustup",
  ".volta",
  ".asdf",
  ".bun",
  ".sdkman",
  ".elan",
  ".ghcup",
  ".local/share/fnm",
  ".local/share/mise",
  ".cache/bridle-toolchain",
];

/**
 * The host folders whose secrets are masked like the workspace's: `readable`, `writable` and the PATH
 * folders of home the view shows, but for the toolchain managers' folders (HOME_TOOLCHAINS). Those hold
 * programs and their public data — CA bundles named `cacert.pem` that TLS needs, test keys — and no
 * credentials (the managers keep those elsewhere: `~/.cargo` is not one of them), while walking them
 * lists a hundred thousand files (`~/.pyenv` with a few Pythons) for each command.
 */
export function shownTrees(view: SandboxView): string[] {
  const home = homedir();
  const toolchains = HOME_TOOLCHAINS.map((name) => join(home, name));
  const inHome = isOwnHome(home)
    ? pathEntriesIn(home).filter((path) => !toolchains.some((root) => isWithin(root, path)))
    : [];
  const listed = [...(view.readable ?? []), ...(view.writable ?? [])].filter((path) => existsSync(path));
  return [...new Set([...inHome, ...listed])];
}

/**
 * What of the home folder PATH needs: for each PATH folder there, the toolchain folder holding it (see
 * HOME_TOOLCHAINS) or else that folder alone — never its parent.
 */
function pathEntriesIn(home: string): string[] {
  const out: string[] = [];
  for (const entry of (process.env.PATH ?? "").split(delimiter)) {
    if (!isAbsolute(entry) || !isWithin(home, entry) || resolve(entry) === resolve(home)) continue;
    const toolchain = HOME_TOOLCHAINS.map((name) => join(home, name)).find((root) => isWithin(root, entry));
    const shown = resolve(toolchain ?? entry);
    try {
      if (statSync(shown).isDirectory() && !out.includes(shown)) out.push(shown);
    } catch {
      // a PATH entry that does not exist
    }
  }
  return out;
}

// /etc/resolv.conf is often a link into /run (systemd-resolved), which the sandbox replaces: with the
// network allowed, the one file it points to is made visible so names still resolve.
function resolverArgs(): string[] {
  try {
    const target = realpathSync("/etc/resolv.conf");
    if (target === "/etc/resolv.conf" || !statSync(target).isFile()) return [];
    if (SYSTEM_TREES.some((tree) => isWithin(tree, target))) return [];
    return ["--ro-bind", target, target];
  } catch {
    return [];
  }
}
