// An ACP prompt (content blocks) as Bridle's user message. What initialize advertises is what is taken
// here: text, images, embedded resources (a file's text the editor attached) and links to resources.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { UserContent, UserMessage } from "@bridle/core";

export const PROMPT_CAPABILITIES = { image: true, audio: false, embeddedContext: true } as const;

export function promptMessage(blocks: readonly ContentBlock[]): UserMessage {
  const content: UserContent[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        content.push({ type: "text", text: block.text });
        break;
      case "image":
        content.push({ type: "image", mediaType: block.mimeType, data: block.data });
        break;
      case "resource_link":
        content.push({ type: "text", text: `[@${block.name}](${block.uri})` });
        break;
      case "resource":
        // A resource's text is the file as the editor holds it (unsaved changes included); a blob is not text.
        if ("text" in block.resource) {
          content.push({
            type: "text",
            text: `<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`,
          });
        } else {
          content.push({ type: "text", text: `[@${block.resource.uri}] (binary content not included)` });
        }
        break;
      default:
        content.push({ type: "text", text: `(a ${block.type} part was left out: not supported)` });
    }
  }
  return { role: "user", content };
}
