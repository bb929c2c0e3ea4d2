import type { Attributes } from "@opentelemetry/api";
import { ATTR } from "./attributes.js";

/**
 * `server.address` and `server.port` for a base URL, as the convention asks of a chat span: the host,
 * and the port, written or implied by the scheme. Nothing for a value that is not an http(s) URL.
 */
export function serverAttributes(baseUrl: string | undefined): Attributes {
  if (!baseUrl) return {};
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return {};
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return {};
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  // URL keeps an IPv6 host in brackets; the convention wants the address alone.
  const address = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return { [ATTR.serverAddress]: address, [ATTR.serverPort]: port };
}
