import {
  type Client,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
} from "@modelcontextprotocol/client";
import { PAGE_LIMIT } from "./tool-listing.js";

interface ListOptions {
  readonly signal: AbortSignal;
  readonly timeout: number;
}

/** Every page of the server's resources and resource templates (none of the latter from a server without them). */
export async function listAllResources(
  client: Client,
  options: ListOptions,
): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }> {
  const resources: Resource[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < PAGE_LIMIT; page++) {
    const result = await client.listResources(cursor ? { cursor } : undefined, options);
    resources.push(...result.resources);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  const templates: ResourceTemplate[] = [];
  cursor = undefined;
  for (let page = 0; page < PAGE_LIMIT; page++) {
    const result: { resourceTemplates: ResourceTemplate[]; nextCursor?: string | undefined } = await client
      .listResourceTemplates(cursor ? { cursor } : undefined, options)
      .catch((error: unknown) => {
        if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound) {
          return { resourceTemplates: [] };
        }
        throw error;
      });
    templates.push(...result.resourceTemplates);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return { resources, templates };
}

/** Every page of the server's prompts. */
export async function listAllPrompts(client: Client, options: ListOptions): Promise<Prompt[]> {
  const prompts: Prompt[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < PAGE_LIMIT; page++) {
    const result = await client.listPrompts(cursor ? { cursor } : undefined, options);
    prompts.push(...result.prompts);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return prompts;
}
