import { type AnyTool, Harness, type ToolResultMessage } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";

/** Calls one tool the way a model would (raw JSON arguments through a real run) and returns its result. */
export async function callTool(
  tools: readonly AnyTool[],
  name: string,
  args: Record<string, unknown> | string,
): Promise<ToolResultMessage & { text: string }> {
  const model = new ScriptedModel([{ toolCalls: [{ name, arguments: args }] }, { text: "ok" }]);
  const result = await new Harness({ model, tools }).run({ prompt: "go" });
  const message = result.messages.find((m): m is ToolResultMessage => m.role === "tool");
  if (!message) throw new Error(`no tool result; the run stopped with ${result.stopReason}`);
  const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return { ...message, text };
}
