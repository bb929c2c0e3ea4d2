// Subagent definitions as files: `.bridle/agents/*.md` in the workspace and `agents/*.md` in the user's
// config folder. A workspace's definitions are workspace configuration (they give a subagent its role and its
// share of the tools), so they apply only behind the same trust prompt as the workspace config's sensitive
// settings; the user's own apply as they are.
import { readdir, realpath } from "node:fs/promises";
import { join, relative } from "node:path";
import { isWithin } from "@bridle/core";
import { readRegularFile } from "../settings/bounded-read.js";
import { displayText } from "../terminal/display-text.js";
import { decideWorkspaceTrust, type TrustIo } from "./trust.js";
import { TrustStore } from "./trust-store.js";

export interface AgentFile {
  readonly path: string;
  readonly text: string;
  readonly source: "workspace" | "user";
}

const MAX_AGENT_BYTES = 256 * 1024;
const MAX_AGENT_FILES = 64;

export async function readAgentFiles(
  workspace: string,
  userDir: string,
  trustFlag: boolean,
  io: TrustIo,
  workspaceToo = true,
): Promise<AgentFile[]> {
  const user = await readFolder(join(userDir, "agents"), "user", io);
  if (!workspaceToo) return user;
  const realWorkspace = await realpath(workspace).catch(() => workspace);
  // A workspace that is the user's config folder holds the user's own definitions, read above.
  if (realWorkspace === (await realpath(userDir).catch(() => userDir))) return user;
  const folder = join(workspace, ".bridle", "agents");
  const found = await readFolder(folder, "workspace", io);
  if (found.length === 0) return user;
  // What is trusted is exactly these files' names and bytes: a change to any asks again.
  const bytes = Buffer.concat(
    found.flatMap((file) => [
      Buffer.from(`${file.path}\0${Buffer.byteLength(file.text)}\0`),
      Buffer.from(file.text),
    ]),
  );
  const store = new TrustStore(userDir);
  const storeInside = isWithin(realWorkspace, await realpath(userDir).catch(() => userDir));
  const verdict = await decideWorkspaceTrust(
    {
      workspace: realWorkspace,
      file: await realpath(folder).catch(() => folder),
      bytes,
      sensitive: { agents: found.map((file) => relative(folder, file.path)) },
      references: [],
    },
    { flag: trustFlag, store: storeInside ? undefined : store, io },
  );
  return verdict === "trusted" ? [...user, ...found] : user;
}

/** The folder's `*.md` files, by name; a link that leads out of the folder, or anything not a file, is skipped. */
async function readFolder(folder: string, source: AgentFile["source"], io: TrustIo): Promise<AgentFile[]> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith(".md")).sort();
  } catch {
    return [];
  }
  const realFolder = await realpath(folder);
  const files: AgentFile[] = [];
  for (const name of names.slice(0, MAX_AGENT_FILES)) {
    const path = join(folder, name);
    try {
      const file = await readRegularFile(path, MAX_AGENT_BYTES);
      if (!isWithin(realFolder, file.realPath)) {
        io.warn(`bridle: warning: skipping ${displayText(path)}: it links outside ${displayText(folder)}`);
        continue;
      }
      files.push({ path, text: file.bytes.toString("utf8"), source });
    } catch (error) {
      io.warn(`bridle: warning: skipping ${displayText(path)}: ${displayText((error as Error).message)}`);
    }
  }
  return files;
}
