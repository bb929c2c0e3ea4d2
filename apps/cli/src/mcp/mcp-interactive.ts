// What MCP servers may ask of the person running bridle: input (elicitation) and completions from the
// model (sampling). With a terminal they are asked there, one question at a time; with nobody to answer,
// elicitation is declined at once and sampling refused, and either is said on stderr.
import type { Message, Model } from "@bridle/core";
import type { McpSamplingRequest, McpServersOptions } from "@bridle/tools-mcp";
import { oneLine } from "../terminal/display-text.js";
import { type Ask, askElicitation } from "./mcp-elicitation.js";

export interface McpInteraction {
  /** Asks the person at the terminal; absent when nobody can answer. */
  readonly ask?: (question: string, signal: AbortSignal) => Promise<string>;
  /** --yes: sampling runs without asking (elicitation still needs a person). */
  readonly approveSampling?: boolean;
  /** The model sampling requests go to (the run's current model). */
  readonly model: () => Model | undefined;
  /** A line for the person (stderr). */
  readonly say: (text: string) => void;
}

type SamplingAnswer = Awaited<ReturnType<NonNullable<McpServersOptions["onSampling"]>>>;

/** The longest a person's answer or a sampling completion may take before it is given up. */
const ANSWER_MS = 10 * 60_000;

/** The MCP client options that route elicitation and sampling through the person (or refuse them). */
export function mcpInteraction(
  interaction: McpInteraction,
): Pick<McpServersOptions, "onElicitation" | "onSampling"> {
  const { say } = interaction;
  // One question at a time: two servers asking at once must not interleave their prompts.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };
  const ask = interaction.ask;
  // A question is given up when its answer is moot (`signal`, from the MCP client) or after ANSWER_MS.
  const terminalFor = (signal: AbortSignal): Ask | undefined => {
    if (!ask) return undefined;
    const within = AbortSignal.any([signal, AbortSignal.timeout(ANSWER_MS)]);
    return (question) => (within.aborted ? Promise.resolve("") : ask(question, within).catch(() => ""));
  };
  return {
    onElicitation: async (request, signal) => {
      const terminal = terminalFor(signal);
      if (!terminal) {
        const what = request.mode === "url" ? `to open ${oneLine(request.url)}` : "for input";
        // --yes answers approvals, not forms: a person's input cannot be made up.
        const why = interaction.approveSampling
          ? "--yes approves calls but cannot answer for you"
          : "nobody at a terminal to answer";
        say(
          `bridle: MCP server "${oneLine(request.server, 60)}" asked ${what} ("${oneLine(request.message, 120)}"); declined: ${why}\n`,
        );
        return { action: "decline" };
      }
      return serially(async () => {
        const answer = await askElicitation(request, terminal, say, signal);
        if (!signal.aborted) return answer;
        say(`(the question of MCP server "${oneLine(request.server, 60)}" was withdrawn)\n`);
        return { action: "cancel" };
      });
    },
    onSampling: (request, signal) =>
      serially(() => sample(request, interaction, terminalFor(signal), signal)),
  };
}

/** The error a refused sampling request answers with (MCP's code for a user's refusal). */
class SamplingRefused extends Error {
  readonly code = -1;
}

async function sample(
  request: McpSamplingRequest,
  interaction: McpInteraction,
  terminal: Ask | undefined,
  withdrawn: AbortSignal,
): Promise<SamplingAnswer> {
  const model = interaction.model();
  const from = `MCP server "${oneLine(request.server, 60)}"`;
  const last = [...request.messages].reverse().find((message) => message.role === "user");
  const preview = last ? oneLine(textOf(last.content), 200) : "";
  if (!interaction.approveSampling) {
    if (!terminal) {
      interaction.say(
        `bridle: ${from} asked the model for a completion; refused: nobody at a terminal to approve it (--yes allows it)\n`,
      );
      throw new SamplingRefused("sampling refused: nobody could approve it");
    }
    interaction.say(
      `${from} asks the model (${request.messages.length} message(s), up to ${request.maxTokens} tokens): "${preview}"\n`,
    );
    const answer = (await terminal("  Allow? [y]es / [n]o: ")).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes")
      throw new SamplingRefused("the user declined the sampling request");
  }
  if (!model) throw new Error("no model is set up to answer sampling requests");
  const signal = AbortSignal.any([withdrawn, AbortSignal.timeout(ANSWER_MS)]);
  for await (const event of model.stream({
    ...(request.systemPrompt ? { system: request.systemPrompt } : {}),
    messages: request.messages.map(toMessage),
    tools: [],
    options: {
      maxOutputTokens: request.maxTokens,
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    },
    signal,
  })) {
    if (event.type === "error") throw new Error(`the model failed: ${event.error.message}`);
    if (event.type === "done") {
      const text = event.message.content
        .flatMap((part) => (part.type === "text" ? [part.text] : []))
        .join("");
      return {
        role: "assistant",
        content: { type: "text", text },
        model: `${model.provider}/${model.model}`,
        stopReason: event.stopReason === "max_tokens" ? "maxTokens" : "endTurn",
      };
    }
  }
  throw new Error("the model's stream ended without an answer");
}

type SamplingContent = McpSamplingRequest["messages"][number]["content"];

/** A sampling message as a neutral one: text and (from the user) images; other blocks named in text. */
function toMessage(message: McpSamplingRequest["messages"][number]): Message {
  const blocks = (Array.isArray(message.content) ? message.content : [message.content]) as {
    type: string;
    text?: string;
    data?: string;
    mimeType?: string;
  }[];
  if (message.role === "assistant") {
    return { role: "assistant", content: [{ type: "text", text: textOf(message.content) }] };
  }
  return {
    role: "user",
    content: blocks.map((block) =>
      block.type === "image" && block.data && block.mimeType
        ? { type: "image" as const, mediaType: block.mimeType, data: block.data }
        : { type: "text" as const, text: block.type === "text" ? (block.text ?? "") : `[${block.type}]` },
    ),
  };
}

function textOf(content: SamplingContent): string {
  const blocks = (Array.isArray(content) ? content : [content]) as { type: string; text?: string }[];
  return blocks.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`)).join("\n");
}
