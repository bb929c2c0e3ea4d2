// MCP servers' prompts as slash commands of the interactive session: `/prompts` lists them, and
// `/mcp__{server}__{prompt} [arg=value | value]…` fetches one, filled in, as the next turn's messages.
import type { Message, UserContent } from "@bridle/core";
import type { McpPrompt, McpServers } from "@bridle/tools-mcp";
import { oneLine } from "../terminal/display-text.js";

/** What the session needs of the MCP servers for prompts. */
export type McpPromptSource = Pick<McpServers, "listPrompts" | "getPrompt">;

type PromptResult = Awaited<ReturnType<McpServers["getPrompt"]>>;

const PREFIX = "/mcp__";

/** The command that runs a prompt (as Claude Code names them: the server's and the prompt's own names). */
export function promptCommand(prompt: McpPrompt): string {
  return `${PREFIX}${prompt.server}__${prompt.name}`;
}

export function isPromptCommand(command: string): boolean {
  return command === "/prompts" || command.startsWith(PREFIX);
}

/**
 * Handles `/prompts` and `/mcp__…` lines: says what it did on `say`, and returns the messages to run as the
 * next turn (undefined when there is nothing to run: a listing, an unknown prompt, a missing argument, a
 * server that failed).
 */
export async function promptTurn(
  source: McpPromptSource | undefined,
  line: string,
  say: (text: string) => void,
): Promise<readonly Message[] | undefined> {
  if (!source) {
    say("no MCP servers are configured (--mcp FILE)\n");
    return undefined;
  }
  const [command = "", ...words] = splitWords(line.trim());
  let prompts: McpPrompt[];
  try {
    prompts = await source.listPrompts();
  } catch (error) {
    say(`listing MCP prompts failed: ${oneLine((error as Error).message)}\n`);
    return undefined;
  }
  if (command === "/prompts") {
    if (prompts.length === 0) say("the MCP servers offer no prompts\n");
    for (const prompt of prompts) say(`${usage(prompt)}${describe(prompt.description)}\n`);
    return undefined;
  }
  const prompt = prompts.find((candidate) => promptCommand(candidate) === command);
  if (!prompt) {
    say(`no MCP prompt ${oneLine(command, 80)}; /prompts lists them\n`);
    return undefined;
  }
  const args = bindArguments(prompt, words);
  if ("problem" in args) {
    say(`${oneLine(args.problem)}; usage: ${usage(prompt)}\n`);
    return undefined;
  }
  let result: PromptResult;
  try {
    result = await source.getPrompt(prompt.server, prompt.name, args.values);
  } catch (error) {
    say(`MCP prompt ${oneLine(command, 120)} failed: ${oneLine((error as Error).message)}\n`);
    return undefined;
  }
  const messages = result.messages.map(toMessage);
  if (messages.length === 0) {
    say(`MCP prompt ${oneLine(command, 120)} gave no messages\n`);
    return undefined;
  }
  say(
    `${oneLine(command, 120)}: ${messages.length} message(s) from MCP server "${oneLine(prompt.server, 60)}"\n`,
  );
  return messages;
}

/** How to run a prompt, as shown: the server's names escaped like any server text. */
function usage(prompt: McpPrompt): string {
  const args = (prompt.arguments ?? []).map((arg) => (arg.required ? `${arg.name}=…` : `[${arg.name}=…]`));
  return oneLine([promptCommand(prompt), ...args].join(" "), 200);
}

function describe(text: string | undefined): string {
  return text ? `  ${oneLine(text, 120)}` : "";
}

/** `name=value` words set that argument; bare words fill the remaining arguments in their order. */
function bindArguments(
  prompt: McpPrompt,
  words: readonly string[],
): { values: Record<string, string> } | { problem: string } {
  const declared = prompt.arguments ?? [];
  const names = new Set(declared.map((arg) => arg.name));
  const values: Record<string, string> = {};
  const bare: string[] = [];
  for (const word of words) {
    const equals = word.indexOf("=");
    const name = equals > 0 ? word.slice(0, equals) : undefined;
    if (name !== undefined && names.has(name)) values[name] = word.slice(equals + 1);
    else bare.push(word);
  }
  for (const arg of declared) {
    if (values[arg.name] === undefined && bare.length > 0) values[arg.name] = bare.shift() as string;
  }
  if (bare.length > 0)
    return { problem: `too many arguments (${bare.map((w) => oneLine(w, 40)).join(" ")})` };
  const missing = declared.filter((arg) => arg.required && !values[arg.name]).map((arg) => arg.name);
  if (missing.length > 0) return { problem: `missing ${missing.join(", ")}` };
  return { values };
}

/** Words split on spaces, with "double" or 'single' quotes keeping spaces in one word. */
function splitWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)) {
    words.push(match[0].replace(/"([^"]*)"|'([^']*)'/g, (_, double, single) => double ?? single));
  }
  return words;
}

/** A prompt message as a neutral one: text and (from the user) images; other content named in text. */
function toMessage(message: PromptResult["messages"][number]): Message {
  const block = message.content;
  let part: UserContent;
  switch (block.type) {
    case "text":
      part = { type: "text", text: block.text };
      break;
    case "image":
      part = { type: "image", mediaType: block.mimeType, data: block.data };
      break;
    case "resource":
      part = {
        type: "text",
        text:
          "text" in block.resource
            ? `[resource ${block.resource.uri}]\n${block.resource.text}`
            : `[binary resource ${block.resource.uri}, not shown]`,
      };
      break;
    case "resource_link":
      part = { type: "text", text: `[resource link: ${block.name} ${block.uri}]` };
      break;
    default:
      part = { type: "text", text: `[${block.type} content, not shown]` };
  }
  if (message.role === "assistant") {
    return { role: "assistant", content: [part.type === "text" ? part : { type: "text", text: "[image]" }] };
  }
  return { role: "user", content: [part] };
}
