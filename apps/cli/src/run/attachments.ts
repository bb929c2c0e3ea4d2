// `@path` in a prompt attaches that file: its text goes to the model inside the user's message, marked
// with its path. The same limits as the agent's own reads hold (core's Workspace): inside the workspace,
// no secrets, not the user's Bridle settings, nothing protected; regular files only, bounded.
import type { Workspace } from "@bridle/core";
import { oneLine } from "../terminal/display-text.js";
import { attachmentWorkspace, readAttachment } from "./attachment-read.js";
import { isImageName } from "./images.js";

/** One attached file's limit, and all of a prompt's together: a prompt is not a way to fill the context. */
export const MAX_ATTACHMENT_BYTES = 256 * 1024;
const MAX_TOTAL_BYTES = 512 * 1024;

// `@` starts a word; an address like a@b.c is left alone. Trailing punctuation is the sentence's, not the path's.
const MENTION = /(?<=^|\s)@([^\s@]+)/g;
const TRAILING = /[.,;:!?)\]}'"]+$/;

/**
 * The prompt with each `@path` naming a file attached after it. A mention that names no file stays text; one
 * refused or over the limit stays text too, and `say` gets a line saying why.
 */
export async function attachFiles(prompt: string, cwd: string, say: (line: string) => void): Promise<string> {
  const mentions = [...new Set([...prompt.matchAll(MENTION)].map((match) => match[1] as string))];
  if (mentions.length === 0) return prompt;
  const workspace = attachmentWorkspace(cwd);
  const seen = new Set<string>();
  const blocks: string[] = [];
  let total = 0;
  for (const mention of mentions) {
    const attached = await attachOne(workspace, mention, MAX_TOTAL_BYTES - total);
    if (attached.kind === "absent") continue;
    if (attached.kind === "refused") {
      say(`bridle: @${oneLine(mention, 200)} not attached: ${oneLine(attached.reason, 300)}`);
      continue;
    }
    if (seen.has(attached.path)) continue;
    seen.add(attached.path);
    total += attached.bytes;
    say(`bridle: attached ${oneLine(attached.path, 200)} (${attached.bytes} bytes)`);
    blocks.push(
      `<file path=${JSON.stringify(attached.path)}>\n${attached.text}${attached.text.endsWith("\n") ? "" : "\n"}</file>`,
    );
  }
  return blocks.length === 0 ? prompt : `${prompt}\n\n${blocks.join("\n\n")}`;
}

type Attached =
  | { readonly kind: "absent" }
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "file"; readonly path: string; readonly text: string; readonly bytes: number };

async function attachOne(workspace: Workspace, mention: string, budget: number): Promise<Attached> {
  const trimmed = mention.replace(TRAILING, "");
  // An image named with @ goes as an image, when the model takes them (images.ts).
  if (isImageName(trimmed)) return { kind: "absent" };
  for (const candidate of trimmed && trimmed !== mention ? [mention, trimmed] : [mention]) {
    const found = await attachPath(workspace, candidate, budget);
    if (found.kind !== "absent") return found;
  }
  return { kind: "absent" };
}

async function attachPath(workspace: Workspace, path: string, budget: number): Promise<Attached> {
  const limit = Math.min(MAX_ATTACHMENT_BYTES, budget);
  const read = await readAttachment(workspace, path, limit);
  if (read.kind !== "bytes") {
    if (read.kind === "too_large")
      return {
        kind: "refused",
        reason: `${path} is larger than ${limit} bytes${limit < MAX_ATTACHMENT_BYTES ? " (what the prompt attaches is bounded in total)" : ""}; ask the agent to read the part you need`,
      };
    return read;
  }
  if (read.bytes.includes(0)) return { kind: "refused", reason: `${path} is binary; only text files attach` };
  return { kind: "file", path: read.path, text: read.bytes.toString("utf8"), bytes: read.bytes.length };
}
