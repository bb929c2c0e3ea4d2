import { defineTool, errorMessage, ToolFailure } from "@bridle/core";
import { z } from "zod";
import { bodyText, readCapped } from "./body.js";
import { HostAllowlist } from "./host-allowlist.js";
import { htmlToText } from "./html-text.js";

export interface FetchToolOptions {
  /**
   * Hosts the tool may reach: "example.com", "*.example.com" (subdomains), "127.0.0.1:8080" (one port).
   * Nothing else is fetched, redirects included. Required: an empty list allows nothing.
   */
  readonly allowedHosts: readonly string[];
  /** Most body bytes read per call (default 512 KiB); the model may ask for fewer. */
  readonly maxBytes?: number;
  /** Milliseconds before a call is stopped and the model sees Timeout (default 30 000). */
  readonly timeoutMs?: number;
  /** Redirects followed per call, each checked against the allowlist (default 5). */
  readonly maxRedirects?: number;
  /** Headers sent with every request (a User-Agent, say). The model cannot set headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface FetchDetails {
  /** The URL the model asked for. */
  readonly url: string;
  /** The URL that answered, after redirects. */
  readonly finalUrl: string;
  readonly status: number;
  readonly contentType?: string;
  /** Body bytes read (at most the cap). */
  readonly bytes: number;
  readonly truncated: boolean;
  /** Each redirect's target, in order. */
  readonly redirects: readonly string[];
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/**
 * An HTTP GET tool limited to an allowlist of hosts, with a cap on the bytes it reads. It shows the
 * model the status, the content type and the body as text (binary bodies are described, not dumped).
 */
export function createFetchTool(options: FetchToolOptions) {
  const allowlist = new HostAllowlist(options.allowedHosts);
  const maxBytes = positive("maxBytes", options.maxBytes ?? 512 * 1024);
  const maxRedirects = options.maxRedirects ?? 5;
  if (!(Number.isInteger(maxRedirects) && maxRedirects >= 0)) {
    throw new RangeError(`createFetchTool: maxRedirects must be a non-negative integer, got ${maxRedirects}`);
  }
  const inputSchema = z.object({
    url: z.string().describe("Absolute http:// or https:// URL to GET"),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .max(maxBytes)
      .optional()
      .describe(`Most body bytes to read (default and most: ${maxBytes})`),
    raw: z
      .boolean()
      .optional()
      .describe("Return an HTML page's source instead of its readable text (default false)"),
  });

  return defineTool({
    name: "fetch",
    description: `Fetch a URL with HTTP GET and return its status, content type and body as text (at most ${maxBytes} bytes). Only these hosts are reachable: ${describeHosts(options.allowedHosts)}.`,
    inputSchema,
    annotations: { read_only: true, idempotent: true, open_world: true },
    timeoutMs: positive("timeoutMs", options.timeoutMs ?? 30_000),
    async execute(args, ctx): Promise<{ content: string; details: FetchDetails; isError: boolean }> {
      let url = parseUrl(args.url);
      const redirects: string[] = [];
      for (;;) {
        if (!allowlist.allows(url)) {
          const via = redirects.length > 0 ? ` (redirected from ${args.url})` : "";
          throw new ToolFailure(
            "Denied",
            `${url.host} is not an allowed host${via}; allowed: ${describeHosts(options.allowedHosts)}`,
          );
        }
        const response = await request(url, options.headers, ctx.signal);
        const location = response.headers.get("location");
        if (!REDIRECT.has(response.status) || location === null) {
          return render(
            args.url,
            url,
            response,
            { cap: args.max_bytes ?? maxBytes, raw: args.raw ?? false },
            redirects,
          );
        }
        await response.body?.cancel().catch(() => {});
        if (redirects.length >= maxRedirects) {
          throw new ToolFailure(
            "ToolError",
            `more than ${maxRedirects} redirects, last to ${location.slice(0, 200)}`,
          );
        }
        url = parseUrl(new URL(location, url).href);
        redirects.push(url.href);
      }
    },
  });
}

function positive(name: string, value: number): number {
  if (!(Number.isInteger(value) && value > 0)) {
    throw new RangeError(`createFetchTool: ${name} must be a positive integer, got ${value}`);
  }
  return value;
}

function describeHosts(hosts: readonly string[]): string {
  if (hosts.length === 0) return "none";
  const shown = hosts.slice(0, 20).join(", ");
  return hosts.length > 20 ? `${shown} and ${hosts.length - 20} more` : shown;
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolFailure("InvalidInput", `"${text.slice(0, 200)}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolFailure("InvalidInput", `${url.protocol} URLs are not fetched; use http:// or https://`);
  }
  if (url.username || url.password) {
    throw new ToolFailure("InvalidInput", "URLs with credentials are not fetched");
  }
  return url;
}

async function request(
  url: URL,
  headers: Readonly<Record<string, string>> | undefined,
  signal: AbortSignal,
): Promise<Response> {
  try {
    return await fetch(url, { redirect: "manual", signal, ...(headers ? { headers: { ...headers } } : {}) });
  } catch (error) {
    // An abort is the run's or the timeout's: let it through so the harness reports it as such.
    if (signal.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ToolFailure(
      "ToolError",
      `could not fetch ${url.href.slice(0, 200)}: ${cause?.code ?? cause?.message ?? errorMessage(error)}`,
    );
  }
}

async function render(
  asked: string,
  url: URL,
  response: Response,
  read: { readonly cap: number; readonly raw: boolean },
  redirects: readonly string[],
): Promise<{ content: string; details: FetchDetails; isError: boolean }> {
  const contentType = response.headers.get("content-type") ?? undefined;
  const { bytes, truncated } = await readCapped(response.body, read.cap);
  const details: FetchDetails = {
    url: asked,
    finalUrl: url.href,
    status: response.status,
    ...(contentType === undefined ? {} : { contentType }),
    bytes: bytes.length,
    truncated,
    redirects,
  };
  const head = [
    `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
    ...(redirects.length > 0 ? [`url: ${url.href}`] : []),
    `content-type: ${contentType ?? "(none)"}`,
  ];
  const decoded = bodyText(bytes, contentType);
  const html =
    decoded !== undefined && !read.raw && /^(text\/html|application\/xhtml\+xml)/i.test(contentType ?? "");
  if (html) head.push("(HTML shown as readable text; raw: true for the source)");
  const text = html ? htmlToText(decoded) : decoded;
  let body: string;
  if (text === undefined)
    body = `(binary body, ${bytes.length} bytes${truncated ? " read before the cap" : ""}, not shown)`;
  else if (text === "") body = "(empty body)";
  else body = truncated ? `${text}\n[truncated: only the first ${bytes.length} bytes were read]` : text;
  return { content: `${head.join("\n")}\n\n${body}`, details, isError: response.status >= 400 };
}
