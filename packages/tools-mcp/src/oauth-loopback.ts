import { createServer } from "node:http";

export interface LoopbackAuthorizationOptions {
  /** Shows the user the authorization URL: opens a browser, or prints it. */
  readonly open: (server: string, url: URL) => void | Promise<void>;
  /** The loopback port the authorization server sends the user back to. Default 33418. */
  readonly port?: number;
  /** Milliseconds to wait for the user. Default 300 000. */
  readonly timeoutMs?: number;
}

/**
 * The `authorize` and `redirectUrl` of `McpServersOptions.oauth` for a person at a browser: the URL is shown
 * (`open`), and the redirect is received on `http://127.0.0.1:PORT/callback`, listened on only while a
 * sign-in waits. The `state` the SDK put in the URL must come back unchanged.
 */
export function loopbackAuthorization(options: LoopbackAuthorizationOptions): {
  readonly redirectUrl: string;
  readonly authorize: (server: string, url: URL) => Promise<URLSearchParams>;
} {
  const port = options.port ?? 33418;
  const redirectUrl = `http://127.0.0.1:${port}/callback`;
  const authorize = (server: string, url: URL) =>
    new Promise<URLSearchParams>((resolve, reject) => {
      const state = url.searchParams.get("state");
      let timer: NodeJS.Timeout | undefined;
      const finish = (error: Error | undefined, answer?: URLSearchParams) => {
        clearTimeout(timer);
        listener.close();
        listener.closeAllConnections();
        if (error) reject(error);
        else resolve(answer as URLSearchParams);
      };
      const listener = createServer((request, response) => {
        const received = new URL(request.url ?? "/", redirectUrl);
        if (received.pathname !== "/callback") {
          response.writeHead(404).end();
          return;
        }
        const error = received.searchParams.get("error");
        const code = received.searchParams.get("code");
        const ok = !error && code && (state === null || received.searchParams.get("state") === state);
        response
          .writeHead(ok ? 200 : 400, { "content-type": "text/plain; charset=utf-8" })
          .end(ok ? "Signed in; you can close this window." : "The sign-in did not complete.");
        if (error) {
          const why = received.searchParams.get("error_description") ?? error;
          finish(
            new Error(`the authorization server refused the sign-in for MCP server "${server}": ${why}`),
          );
        } else if (!ok) {
          finish(
            new Error(`the sign-in redirect for MCP server "${server}" carried no code or a wrong state`),
          );
        } else finish(undefined, received.searchParams);
      });
      listener.once("error", (error) => finish(error));
      listener.listen(port, "127.0.0.1", () => {
        timer = setTimeout(
          () =>
            finish(
              new Error(`no sign-in for MCP server "${server}" within ${options.timeoutMs ?? 300_000} ms`),
            ),
          options.timeoutMs ?? 300_000,
        );
        Promise.resolve(options.open(server, url)).catch((error: unknown) => finish(error as Error));
      });
    });
  return { redirectUrl, authorize };
}
