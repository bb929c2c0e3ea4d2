import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import type { ConnectionSettings } from "./connection-settings.js";
import type { RunningCalls } from "./running-calls.js";

export interface ClientHooks {
  /** The server said its tools changed. */
  readonly onToolsChanged: () => void;
  /** The calls running on the connection, which the server's requests and log lines concern. */
  readonly running: RunningCalls;
  /** Aborted when the connection closes, which makes any pending answer moot. */
  readonly closing: AbortSignal;
  /** The connection's call timeout (the server's own, or the settings'). */
  readonly callTimeoutMs: number;
}

/**
 * The SDK client for one server: the capabilities Bridle offers (roots, elicitation, sampling when the
 * caller can answer), and the handlers that answer the server and route its notifications.
 */
export function makeClient(server: string, settings: ConnectionSettings, hooks: ClientHooks): Client {
  const client = new Client(
    { name: settings.clientName, version: settings.clientVersion },
    {
      // 2026-07-28 with servers that offer it (`server/discover`), the 2025 `initialize` handshake with
      // those that do not. The probe has the handshake's whole time (see transport.ts): a server that is
      // slow to start is not mistaken for an old one.
      versionNegotiation: { mode: "auto" },
      capabilities: {
        roots: { listChanged: false },
        // SEP-1034: an accepted form gets the defaults its schema names for fields left out.
        // URL mode too: a server that sends the user to a page is asked like any other (and declined
        // when nobody can answer).
        elicitation: { form: { applyDefaults: true }, url: {} },
        // Offered only when the caller can answer (through its model, behind its own approval).
        ...(settings.onSampling ? { sampling: {} } : {}),
      },
      listChanged: {
        tools: {
          // Refetched by the connection rather than by the SDK, which reads only the first page.
          autoRefresh: false,
          debounceMs: 50,
          onChanged: hooks.onToolsChanged,
        },
        prompts: {
          autoRefresh: false,
          debounceMs: 50,
          onChanged: () => settings.onListChanged(server, "prompts"),
        },
        resources: {
          autoRefresh: false,
          debounceMs: 50,
          onChanged: () => settings.onListChanged(server, "resources"),
        },
      },
    },
  );
  const root = settings.workspaceFolder;
  const stops = (withdrawn: AbortSignal) => ({
    withdrawn,
    closing: hooks.closing,
    callTimeoutMs: hooks.callTimeoutMs,
  });
  // Roots, sampling and logging are deprecated from 2026-07-28 on; they are kept for older servers.
  client.setRequestHandler("roots/list", () => ({
    roots: [{ uri: pathToFileURL(root).href, name: basename(root) || root }],
  }));
  client.setRequestHandler("elicitation/create", async (request, ctx) => {
    const answer = settings.onElicitation;
    // Nobody to ask: declined, which the server can tell apart from a person's refusal ("cancel").
    if (!answer) return { action: "decline" };
    return hooks.running.whileAsking(client, stops(ctx.mcpReq.signal), (signal) =>
      answer({ ...request.params, server }, signal),
    );
  });
  const sample = settings.onSampling;
  if (sample) {
    client.setRequestHandler("sampling/createMessage", (request, ctx) =>
      hooks.running.whileAsking(client, stops(ctx.mcpReq.signal), (signal) =>
        sample({ ...request.params, server }, signal),
      ),
    );
  }
  client.setNotificationHandler("notifications/message", (notification) => {
    settings.onLog?.(server, notification.params);
    // Log lines sent while calls wait reach those runs as progress, next to the call they concern.
    for (const { ctx, tool } of hooks.running) {
      ctx.progress({ server, tool, log: notification.params });
    }
  });
  return client;
}
