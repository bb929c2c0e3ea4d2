import {
  type AnyTool,
  defineHook,
  defineTool,
  type HookInputs,
  type Message,
  type RunEvent,
  type ToolResultMessage,
} from "@bridle/core";
import { z } from "zod";
import { subagentEventOf } from "../src/index.js";

export const echo: AnyTool = defineTool({
  name: "echo",
  description: "Echo the text",
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: `echo: ${text}` }),
});

export const secret: AnyTool = defineTool({
  name: "secret",
  description: "A tool only the parent may use",
  inputSchema: z.object({}),
  execute: async () => ({ content: "s3cret" }),
});

/** Sleeps until aborted or `ms` pass; records whether it saw the abort. */
export function sleeper(log: string[]): AnyTool {
  return defineTool({
    name: "sleep",
    description: "Sleep",
    inputSchema: z.object({ ms: z.number().int() }),
    execute: async ({ ms }, ctx) => {
      log.push("sleep:start");
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          log.push("sleep:aborted");
          reject(new Error("aborted"));
        });
      });
      log.push("sleep:end");
      return { content: "slept" };
    },
  });
}

/** Hooks that record what they saw, by event name. */
export function recordingHooks(seen: string[]) {
  const note =
    <E extends keyof HookInputs>(event: E, describe: (ctx: HookInputs[E]) => string) =>
    (ctx: HookInputs[E]) => {
      seen.push(`${event}:${ctx.agentName ?? "parent"}:${describe(ctx)}`);
    };
  return [
    defineHook({ event: "before_subagent_run", handler: note("before_subagent_run", (c) => c.subagent) }),
    defineHook({
      event: "after_subagent_run",
      handler: note("after_subagent_run", (c) => `${c.subagent}:${c.stopReason}`),
    }),
    defineHook({ event: "before_tool_call", handler: note("before_tool_call", (c) => c.toolCall.name) }),
  ];
}

export function childEvents(events: readonly RunEvent[]): RunEvent[] {
  return events.flatMap((event) => {
    const child = subagentEventOf(event);
    return child ? [child] : [];
  });
}

export function lastToolJson(messages: readonly Message[], index = -1): Record<string, unknown> {
  const results = messages.filter((m): m is ToolResultMessage => m.role === "tool");
  const parts = results.at(index)?.content ?? [];
  const text = parts.map((p) => (p.type === "text" ? p.text : "")).join("");
  return JSON.parse(text) as Record<string, unknown>;
}
