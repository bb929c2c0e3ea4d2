import { type AnyTool, defineTool, type Message, type RunEvent, toolCallsOf } from "@bridle/core";
import { build } from "esbuild";
import { expect } from "vitest";
import { z } from "zod";

/** The history invariant: every tool result follows an assistant call with the same id, and every call has exactly one result. */
export function expectWellFormed(messages: readonly Message[]): void {
  const open = new Set<string>();
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      expect(open.size, "a new assistant turn while calls are unanswered").toBe(0);
      for (const call of toolCallsOf(message)) open.add(call.id);
    } else if (message.role === "tool") {
      expect(open.has(message.toolCallId), `result ${message.toolCallId} has no preceding call`).toBe(true);
      expect(answered.has(message.toolCallId)).toBe(false);
      open.delete(message.toolCallId);
      answered.add(message.toolCallId);
    } else {
      expect(open.size, "a user message while calls are unanswered").toBe(0);
    }
  }
  expect([...open], "calls without results").toEqual([]);
}

export function eventTypes(events: readonly RunEvent[]): string[] {
  return events.map((event) => event.type);
}

export function resultText(message: Message | undefined): string {
  if (message?.role !== "tool") throw new Error("not a tool result");
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

export const noopTool: AnyTool = defineTool({
  name: "noop",
  description: "Does nothing",
  inputSchema: z.object({}),
  execute: async () => ({ content: "ok" }),
});

export function sleepTool(
  name: string,
  log: string[],
  options: { sequential?: boolean; onStart?: () => void } = {},
): AnyTool {
  return defineTool({
    name,
    description: "Sleeps for ms milliseconds",
    inputSchema: z.object({ ms: z.number().int(), label: z.string() }),
    sequential: options.sequential ?? false,
    execute: async ({ ms, label }, ctx) => {
      log.push(`start:${label}`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        const onAbort = () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        };
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener("abort", onAbort);
        options.onStart?.();
      });
      log.push(`end:${label}`);
      return { content: `slept ${label}` };
    },
  });
}

/** Bundles a child script with core's source, so the child is a plain node process on today's code. */
export async function bundleChild(source: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [source],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile,
    logLevel: "warning",
  });
}
