import type { Message } from "@bridle/core";

/**
 * A conversation with everything an adapter must carry: its own reasoning with a replay token, another
 * provider's reasoning, parallel tool calls, an image result, and a harness notice right after the tool
 * results (two user-side messages in a row).
 */
export const mixedTranscript: readonly Message[] = [
  { role: "user", content: [{ type: "text", text: "List the repo and read the README." }] },
  {
    role: "assistant",
    provider: "openai",
    content: [
      {
        type: "reasoning",
        text: "I should list first.",
        provider: "openai",
        blob: { id: "rs_1", encryptedContent: "enc-1" },
      },
      { type: "reasoning", text: "Claude thought this.", provider: "anthropic", blob: { signature: "sig" } },
      { type: "text", text: "Looking." },
      { type: "tool_call", id: "call_a", name: "list_dir", arguments: '{"path":"."}' },
      { type: "tool_call", id: "call_b", name: "read_file", arguments: '{"path":"README.md"}' },
    ],
  },
  {
    role: "tool",
    toolCallId: "call_a",
    toolName: "list_dir",
    isError: false,
    content: [{ type: "text", text: "README.md\nsrc/" }],
  },
  {
    role: "tool",
    toolCallId: "call_b",
    toolName: "read_file",
    isError: true,
    errorKind: "NotFound",
    content: [
      { type: "text", text: "NotFound: README.md" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
    ],
  },
  { role: "user", content: [{ type: "text", text: "[harness notice] 2 model requests remain." }] },
];
