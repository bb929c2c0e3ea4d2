// A person's sign-in: the URL is shown, the browser follows the authorization server's redirect to the
// loopback port, and the code reaches the bridge; a refusal or a forged state is an error naming the server.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loopbackAuthorization } from "../src/index.js";
import { freePort } from "./helpers.js";

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** An authorization endpoint that sends the browser back with a code (or an error), as a real one does. */
async function authorizationServer(answer: (redirect: URL, state: string | null) => URL): Promise<string> {
  const server = createServer((request, response) => {
    const asked = new URL(request.url ?? "/", "http://127.0.0.1");
    const redirect = new URL(asked.searchParams.get("redirect_uri") as string);
    response.writeHead(302, { location: answer(redirect, asked.searchParams.get("state")).href }).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
}

/** The browser: follows redirects to the end. */
const browser = async (_server: string, url: URL) => {
  await fetch(url);
};

describe("loopbackAuthorization", () => {
  it("receives the code on the loopback redirect, with the issuer that sent it", async () => {
    const flow = loopbackAuthorization({ open: browser, port: await freePort() });
    const endpoint = await authorizationServer((redirect, state) => {
      redirect.searchParams.set("code", "the-code");
      redirect.searchParams.set("iss", "https://auth.example.test");
      if (state) redirect.searchParams.set("state", state);
      return redirect;
    });
    const url = new URL(`${endpoint}?state=s1&redirect_uri=${encodeURIComponent(flow.redirectUrl)}`);
    const answer = await flow.authorize("github", url);
    expect(answer.get("code")).toBe("the-code");
    // Handed on whole, so the SDK checks which authorization server answered (RFC 9207).
    expect(answer.get("iss")).toBe("https://auth.example.test");
  });

  it("refuses a redirect whose state differs, and reports a refusal", async () => {
    const flow = loopbackAuthorization({ open: browser, port: await freePort() });
    const forged = await authorizationServer((redirect) => {
      redirect.searchParams.set("code", "stolen");
      redirect.searchParams.set("state", "other");
      return redirect;
    });
    await expect(
      flow.authorize(
        "github",
        new URL(`${forged}?state=s1&redirect_uri=${encodeURIComponent(flow.redirectUrl)}`),
      ),
    ).rejects.toThrow(/MCP server "github" carried no code or a wrong state/);
    const refused = await authorizationServer((redirect) => {
      redirect.searchParams.set("error", "access_denied");
      redirect.searchParams.set("error_description", "the user said no");
      return redirect;
    });
    await expect(
      flow.authorize("github", new URL(`${refused}?redirect_uri=${encodeURIComponent(flow.redirectUrl)}`)),
    ).rejects.toThrow(/refused the sign-in for MCP server "github": the user said no/);
  });
});
