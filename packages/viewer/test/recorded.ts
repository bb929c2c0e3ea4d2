// A session recorded the way the CLI records one: a real Harness, real file tools in a temp workspace, a
// scripted model, and the events written through core's sessionSink into a real store.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Approver, Harness, type SessionStore, sessionSink } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { createFsTools } from "@bridle/tools-fs";

export const CART_BEFORE =
  "export function total(items) {\n  return items.reduce((sum, item) => sum + item.price, 0);\n}\n";
export const OLD_LINE = "  return items.reduce((sum, item) => sum + item.price, 0);";
export const NEW_LINE = "  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);";

/**
 * Two runs, 6 model turns, 5 tool calls: one edit, one failing with NotFound, one whole-file write that
 * needs approval and is refused by the approver (with its reason).
 */
export const RECORDED = { runs: 2, turns: 6, toolCalls: 5, failed: 2 } as const;
export const REFUSAL = "no new files in this change";

export async function recordSession(
  store: SessionStore,
  workspace: string,
  id = "recorded",
): Promise<string> {
  await writeFile(join(workspace, "cart.js"), CART_BEFORE);
  await store.createSession({ id, title: "Fix the cart total" });
  const model = new ScriptedModel(
    [
      {
        reasoning: "The total ignores quantities. I should read cart.js before editing it.",
        toolCalls: [{ name: "read_file", arguments: { path: "cart.js" } }],
        usage: { inputTokens: 1200, outputTokens: 40 },
      },
      {
        text: "Multiplying by quantity.",
        toolCalls: [
          { name: "edit_file", arguments: { path: "cart.js", old_string: OLD_LINE, new_string: NEW_LINE } },
        ],
        usage: { inputTokens: 1500, outputTokens: 60 },
      },
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "missing.txt" } },
          {
            name: "write_file",
            arguments: { path: "NOTES.md", content: "# Notes\ntotal now counts quantity\n" },
          },
        ],
        usage: { inputTokens: 1700, outputTokens: 50 },
      },
      {
        text: "Fixed the total: it now multiplies each price by its quantity.",
        usage: { inputTokens: 1900, outputTokens: 30 },
      },
      {
        toolCalls: [{ name: "read_file", arguments: { path: "cart.js" } }],
        usage: { inputTokens: 2000, outputTokens: 20 },
      },
      { text: "You're welcome.", usage: { inputTokens: 2100, outputTokens: 5 } },
    ],
    { model: "gpt-test" },
  );
  // write_file asks for approval here, and the approver refuses it: the page shows both decisions.
  const tools = createFsTools().tools.map((tool) =>
    tool.name === "write_file"
      ? { ...tool, annotations: { ...tool.annotations, requires_approval: true } }
      : tool,
  );
  const approver: Approver = {
    decide: async (request) =>
      request.toolCall.name === "write_file" ? { approved: false, reason: REFUSAL } : { approved: true },
  };
  const harness = new Harness({ model, tools, workspace, approver });
  const first = await harness.run({
    prompt: "The cart total ignores quantities. Fix it.",
    sink: sessionSink(store, id),
  });
  await harness.run({
    prompt: "Thanks! Read the notes back.",
    history: first.messages,
    sink: sessionSink(store, id),
  });
  return id;
}
