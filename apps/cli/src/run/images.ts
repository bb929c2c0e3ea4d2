// Images in a prompt: `--image FILE` and an image's path in the prompt (a terminal pastes a dragged file as
// its path, quoted or with escaped spaces). They reach the model as image parts of the user's message, for
// models whose row says they take images; read under the same limits as `@path` (attachment-read.ts), and
// only PNG, JPEG, GIF and WebP, known by their first bytes rather than by their names.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ImagePart, Model, UserMessage } from "@bridle/core";
import { CliError } from "../cli-error.js";
import { oneLine } from "../terminal/display-text.js";
import { attachmentWorkspace, readAttachment } from "./attachment-read.js";

/** One image's limit: Anthropic's per-image maximum, the smallest of the APIs bridle talks. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** A prompt's images together: each is kept in the session's record. */
const MAX_PROMPT_IMAGES = 8;
const MAX_TOTAL_IMAGE_BYTES = 20 * 1024 * 1024;

export interface ImageAttachment {
  /** As shown to the person and the model: relative to the workspace. */
  readonly path: string;
  readonly part: ImagePart;
  readonly bytes: number;
}

const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;

/** Whether a name looks like an image's: such a word in a prompt is attached as an image, not as text. */
export function isImageName(name: string): boolean {
  return IMAGE_NAME.test(name);
}

/** The image type by the file's first bytes, or undefined when it is none of the four. */
export function imageTypeOf(bytes: Buffer): string | undefined {
  const starts = (...sig: number[]) => sig.every((byte, i) => bytes[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  const head = bytes.subarray(0, 12).toString("latin1");
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** Why this model is sent no images, or undefined when it takes them. */
export function imageRefusal(model: Model): string | undefined {
  const name = `${model.provider}/${model.model}`;
  if (!model.info)
    return `${name} is not in bridle's model table, so whether it takes images is unknown (if it does, add it under "models" in your config with "capabilities": {"images": true})`;
  if (!model.info.capabilities.images) return `${name} does not take images`;
  return undefined;
}

/**
 * The `--image` files, read for the first prompt; each is given on purpose, so any that cannot go is a
 * usage error (exit 2) before anything is sent. Relative paths start from `typedIn`, the folder the person
 * typed the command in; every file must still lie inside the workspace `cwd`.
 */
export async function readImageFiles(
  files: readonly string[],
  cwd: string,
  model: Model,
  typedIn: string = process.cwd(),
): Promise<ImageAttachment[]> {
  if (files.length === 0) return [];
  const refusal = imageRefusal(model);
  if (refusal) throw new CliError(`--image ${oneLine(files[0] as string, 200)}: not sent: ${refusal}`, 2);
  if (files.length > MAX_PROMPT_IMAGES)
    throw new CliError(`--image: at most ${MAX_PROMPT_IMAGES} images go with one prompt`, 2);
  const workspace = attachmentWorkspace(cwd);
  const images: ImageAttachment[] = [];
  for (const file of files) {
    const read = await readImage(workspace, resolve(typedIn, file), budget(images));
    if (read.kind === "absent") throw new CliError(`--image ${oneLine(file, 200)}: no such file`, 2);
    if (read.kind === "refused") throw new CliError(`--image ${oneLine(file, 200)}: ${read.reason}`, 2);
    if (!images.some((image) => image.path === read.image.path)) images.push(read.image);
  }
  return images;
}

/**
 * The images whose paths the prompt holds (`shot.png`, `'/ws/my shot.png'`, `my\ shot.png`, `@shot.png`),
 * relative to the workspace. A path naming no file stays a word; one refused, or a model that takes no
 * images, is one line to `say` and the path stays text.
 */
export async function pastedImages(
  prompt: string,
  cwd: string,
  model: Model,
  say: (line: string) => void,
  already: readonly ImageAttachment[] = [],
): Promise<ImageAttachment[]> {
  const paths = imagePathsIn(prompt);
  if (paths.length === 0) return [];
  const workspace = attachmentWorkspace(cwd);
  const refusal = imageRefusal(model);
  const images: ImageAttachment[] = [];
  for (const path of paths) {
    const all = [...already, ...images];
    if (all.length >= MAX_PROMPT_IMAGES) {
      say(
        `bridle: ${oneLine(path, 200)} not attached: at most ${MAX_PROMPT_IMAGES} images go with one prompt`,
      );
      continue;
    }
    // A name that is nowhere (outside the workspace too) is a word, not a refusal to report.
    if (!existsSync(resolve(cwd, path))) continue;
    const read = await readImage(workspace, path, budget(all));
    if (read.kind === "absent") continue;
    if (read.kind === "refused") {
      say(`bridle: ${oneLine(path, 200)} not attached: ${oneLine(read.reason, 400)}`);
      continue;
    }
    if (refusal) {
      say(`bridle: ${oneLine(path, 200)} not attached: ${refusal}`);
      continue;
    }
    if (!all.some((image) => image.path === read.image.path)) images.push(read.image);
  }
  return images;
}

/** The prompt as sent: its text alone, or a user message with the images after it, each labelled. */
export function withImages(
  text: string,
  images: readonly ImageAttachment[],
  say: (line: string) => void,
): string | UserMessage {
  if (images.length === 0) return text;
  for (const image of images)
    say(`bridle: attached image ${oneLine(image.path, 200)} (${image.part.mediaType}, ${image.bytes} bytes)`);
  return {
    role: "user",
    content: [
      { type: "text", text },
      ...images.flatMap((image) => [
        { type: "text" as const, text: `<image path=${JSON.stringify(image.path)}>` },
        image.part,
      ]),
    ],
  };
}

type ImageRead =
  | { readonly kind: "absent" }
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "image"; readonly image: ImageAttachment };

async function readImage(
  workspace: ReturnType<typeof attachmentWorkspace>,
  path: string,
  room: number,
): Promise<ImageRead> {
  const limit = Math.min(MAX_IMAGE_BYTES, room);
  const read = await readAttachment(workspace, path, limit);
  if (read.kind === "too_large")
    return {
      kind: "refused",
      reason: `${path} is larger than ${limit} bytes${limit < MAX_IMAGE_BYTES ? " (a prompt's images are bounded in total)" : ""}; send a smaller image`,
    };
  if (read.kind !== "bytes") return read;
  const mediaType = imageTypeOf(read.bytes);
  if (!mediaType) return { kind: "refused", reason: `${path} is not a PNG, JPEG, GIF or WebP image` };
  return {
    kind: "image",
    image: {
      path: read.path,
      part: { type: "image", mediaType, data: read.bytes.toString("base64") },
      bytes: read.bytes.length,
    },
  };
}

function budget(images: readonly ImageAttachment[]): number {
  return MAX_TOTAL_IMAGE_BYTES - images.reduce((sum, image) => sum + image.bytes, 0);
}

// A word that starts after a space: quoted as a terminal pastes a path with spaces, or bare with its spaces
// escaped; an `@` before it is the attachment mark. A `file://` URL is its path.
const WORD = /(?<=^|\s)@?(?:'([^'\n]+)'|"([^"\n]+)"|((?:\\.|[^\s'"\\])+))/g;
const TRAILING = /[.,;:!?)\]}]+$/;

/** The image paths a prompt holds, in order, once each. */
export function imagePathsIn(prompt: string): string[] {
  const paths: string[] = [];
  for (const match of prompt.matchAll(WORD)) {
    const quoted = match[1] ?? match[2];
    let path = quoted ?? (match[3] as string).replace(TRAILING, "").replace(/\\(.)/g, "$1");
    if (path.startsWith("file://")) {
      try {
        path = decodeURIComponent(new URL(path).pathname);
      } catch {
        continue;
      }
    }
    if (isImageName(path) && !paths.includes(path)) paths.push(path);
  }
  return paths;
}
