// Custom prompts as slash commands: markdown files in the user's config folder (commands/*.md) and the
// workspace's .bridle/commands/*.md. `/name words…` sends the file's text as the person's prompt, with
// $ARGUMENTS replaced by the words. They are prompts only: nothing in them changes a setting, so a
// workspace's need no trust (the person sees the command's name and chooses to send it).
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { userConfigFolder } from "@bridle/core";
import { readRegularFile } from "@bridle/core/node";
import { parseFrontMatter } from "@bridle/skills";
import { oneLine } from "../terminal/display-text.js";

export interface CustomCommand {
  readonly name: string;
  readonly description?: string;
  readonly source: "user" | "workspace";
  readonly body: string;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const MAX_COMMAND_BYTES = 64 * 1024;
/** A folder holding more is read up to this many commands (sorted by name). */
const MAX_COMMANDS = 200;

/**
 * The commands of both folders, by name; a workspace's replaces the user's of the same name. A file that
 * cannot be one (a bad name, too large, not a regular file, broken front matter) is skipped with a line.
 */
export async function loadCustomCommands(
  cwd: string,
  warn: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ReadonlyMap<string, CustomCommand>> {
  const commands = new Map<string, CustomCommand>();
  for (const [source, dir] of [
    ["user", join(userConfigFolder(env), "commands")],
    ["workspace", join(cwd, ".bridle", "commands")],
  ] as const) {
    for (const command of await readFolder(dir, source, warn))
      commands.set(command.name.toLowerCase(), command);
  }
  return commands;
}

async function readFolder(
  dir: string,
  source: CustomCommand["source"],
  warn: (line: string) => void,
): Promise<CustomCommand[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith(".md")).sort();
  } catch {
    return []; // no folder: no commands
  }
  const commands: CustomCommand[] = [];
  for (const file of names.slice(0, MAX_COMMANDS)) {
    const name = file.slice(0, -3);
    const path = join(dir, file);
    if (!NAME.test(name)) {
      warn(`bridle: skipped command ${oneLine(path, 300)}: a name is letters, digits, - and _`);
      continue;
    }
    let text: string;
    try {
      text = (await readRegularFile(path, MAX_COMMAND_BYTES)).bytes.toString("utf8");
    } catch (error) {
      warn(`bridle: skipped command ${oneLine(path, 300)}: ${oneLine((error as Error).message, 200)}`);
      continue;
    }
    const parsed = parseFrontMatter(text);
    if (!parsed.ok && text.startsWith("---")) {
      warn(`bridle: skipped command ${oneLine(path, 300)}: ${oneLine(parsed.problem, 200)}`);
      continue;
    }
    const description = parsed.ok ? parsed.data.description : undefined;
    commands.push({
      name,
      source,
      body: parsed.ok ? parsed.body : text,
      ...(typeof description === "string" ? { description } : {}),
    });
  }
  return commands;
}

/** The prompt a command sends: its text with $ARGUMENTS replaced, or the words after it when it has none. */
export function expandCommand(command: CustomCommand, args: string): string {
  const body = command.body.trimEnd();
  if (body.includes("$ARGUMENTS")) return body.replaceAll("$ARGUMENTS", () => args);
  return args ? `${body}\n\n${args}` : body;
}

/** The lines /help adds for the custom commands. */
export function customCommandsHelp(commands: ReadonlyMap<string, CustomCommand>): string {
  if (commands.size === 0) return "";
  const rows = [...commands.values()].map(
    (c) => `/${c.name.padEnd(12)} ${oneLine(c.description ?? "(no description)", 100)}  [${c.source}]`,
  );
  return `Your commands (~/.config/bridle/commands, .bridle/commands; /NAME [text] sends the prompt):\n${rows.join("\n")}\n`;
}
