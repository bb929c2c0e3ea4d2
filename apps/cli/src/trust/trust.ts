// Workspace trust: a config file inside the repository being worked on is data the repository (and the agent
// working in it) controls, so the settings in it that can run commands, approve calls, send the API key
// elsewhere or widen access apply only once the user has said so for exactly that content.
import { createHash, randomUUID } from "node:crypto";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { CliError } from "../cli-error.js";
import { readRegularFile } from "../settings/bounded-read.js";
import { displayText } from "../terminal/display-text.js";
import type { TrustStore } from "./trust-store.js";

// Kept for the modules that took it from here; its home is display-text.ts.
export { displayText };

/** How the user is asked, and where the one-line notices go. `ask` is absent without a terminal. */
export interface TrustIo {
  readonly ask?: (question: string) => Promise<string>;
  readonly warn: (line: string) => void;
}

export interface WorkspaceConfig {
  /** Real path of the workspace root. */
  readonly workspace: string;
  /** Real path of the config file, as opened. */
  readonly file: string;
  readonly bytes: Buffer;
  /** The sensitive settings it holds, by key (raw values as written, for the prompt). */
  readonly sensitive: Readonly<Record<string, unknown>>;
  /** Files and folders the sensitive settings point at: their content is part of what is trusted. */
  readonly references: readonly string[];
}

export type TrustVerdict = "trusted" | "ignored";

/**
 * Whether the sensitive settings of a workspace config apply: `--trust`, a remembered yes for this exact
 * content, or a yes on the terminal (remembered). Otherwise they are ignored, with one notice naming them.
 */
export async function decideWorkspaceTrust(
  config: WorkspaceConfig,
  options: {
    readonly flag: boolean;
    /** Undefined when the trust file lies inside the workspace: the agent could write its own trust there. */
    readonly store: TrustStore | undefined;
    readonly io: TrustIo;
  },
): Promise<TrustVerdict> {
  const keys = Object.keys(config.sensitive);
  if (keys.length === 0 || options.flag) return "trusted";
  const print = fingerprint(config.bytes, await referenceDigests(config.references));
  const { store, io } = options;
  if (store) {
    const loaded = await store.load();
    if (loaded.problem) io.warn(`bridle: warning: ${displayText(loaded.problem)}`);
    const remembered = loaded.records.some(
      (r) => r.workspace === config.workspace && r.file === config.file && r.fingerprint === print,
    );
    if (remembered) return "trusted";
  }
  const names = keys.map(displayKey).join(", ");
  if (!io.ask) {
    io.warn(
      `bridle: warning: ignoring ${names} from the untrusted workspace config ${displayText(config.file)} (answer the trust prompt on a terminal, or pass --trust)`,
    );
    return "ignored";
  }
  const answer = (await io.ask(trustQuestion(config, store !== undefined))).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") {
    io.warn(`bridle: ignoring ${names} from ${displayText(config.file)} for this run`);
    return "ignored";
  }
  if (!store) return "trusted";
  try {
    await store.remember(config.workspace, config.file, print);
    io.warn(`bridle: trusted; remembered in ${displayText(store.path)} until the file changes`);
  } catch (error) {
    // The answer still holds for this run; only remembering it failed.
    io.warn(
      `bridle: warning: trusted for this run, but not remembered: ${displayText((error as Error).message)}`,
    );
  }
  return "trusted";
}

function trustQuestion(config: WorkspaceConfig, rememberable: boolean): string {
  const lines = Object.entries(config.sensitive).map(
    ([key, value]) => `  ${displayKey(key)}: ${displayValue(value)}`,
  );
  return [
    `The workspace config ${displayText(config.file)} sets what can run commands, approve tool calls, send your API key elsewhere or widen access:`,
    ...lines,
    `Apply these settings? Say yes only if you trust this repository. ${rememberable ? "[y]es, and remember until the file changes" : "[y]es, this run (your trust file is inside this workspace, so nothing is remembered)"} / [N]o, ignore them this run: `,
  ].join("\n");
}

/** Content of the config and of what it points at, so editing either asks again. */
function fingerprint(configBytes: Buffer, references: readonly string[]): string {
  const hash = createHash("sha256").update("bridle-workspace-trust-v1\0");
  hash.update(`${configBytes.length}\0`).update(configBytes);
  for (const reference of references) hash.update(`\0${reference}`);
  return hash.digest("hex");
}

const MAX_REFERENCE_BYTES = 64 * 1024 * 1024;
const MAX_REFERENCE_ENTRIES = 10_000;

/**
 * One digest per referenced path: a file's bytes, a folder's tree (names, kinds, link targets, contents).
 * What cannot be read is named as such; a tree over the limits gets a digest of its own that no later run
 * reproduces, so it is trusted for the run the user answered and asked about again next time.
 */
async function referenceDigests(paths: readonly string[]): Promise<string[]> {
  const digests: string[] = [];
  for (const path of paths) {
    const hash = createHash("sha256").update(path);
    const budget = { bytes: MAX_REFERENCE_BYTES, entries: MAX_REFERENCE_ENTRIES };
    const complete = await hashTree(path, hash, budget);
    digests.push(complete ? hash.digest("hex") : `unbounded:${randomUUID()}`);
  }
  return digests;
}

async function hashTree(
  path: string,
  hash: ReturnType<typeof createHash>,
  budget: { bytes: number; entries: number },
): Promise<boolean> {
  if (--budget.entries < 0) return false;
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(path);
  } catch (error) {
    hash.update(`\0missing:${(error as NodeJS.ErrnoException).code ?? "?"}`);
    return true;
  }
  if (info.isSymbolicLink()) {
    hash.update(`\0link:${await readlink(path).catch(() => "\0unreadable")}`);
    return true;
  }
  if (info.isDirectory()) {
    const names = await readdir(path).catch(() => undefined);
    if (names === undefined) {
      hash.update("\0dir:unreadable");
      return true;
    }
    names.sort();
    hash.update(`\0dir:${names.length}`);
    for (const name of names) {
      hash.update(`\0name:${name}`);
      if (!(await hashTree(join(path, name), hash, budget))) return false;
    }
    return true;
  }
  if (!info.isFile()) {
    hash.update(`\0special:${info.mode}`);
    return true;
  }
  let bytes: Buffer;
  try {
    ({ bytes } = await readRegularFile(path, Math.max(0, budget.bytes)));
  } catch (error) {
    // Over the budget, or no longer a regular file since the lstat: the tree cannot be fingerprinted.
    if (error instanceof CliError) return false;
    bytes = Buffer.from("\0unreadable");
  }
  budget.bytes -= bytes.length;
  hash.update(`\0file:${bytes.length}\0`).update(bytes);
  return true;
}

function displayKey(key: string): string {
  return /^[A-Za-z][A-Za-z0-9-]*$/.test(key) ? key : JSON.stringify(displayText(key, 60));
}

function displayValue(value: unknown): string {
  return displayText(JSON.stringify(value) ?? String(value));
}
