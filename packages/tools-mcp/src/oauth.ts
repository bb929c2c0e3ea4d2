import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { userConfigFolder } from "@bridle/core";
import { writeFileAtomicSync } from "@bridle/core/node";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import {
  ClientCredentialsProvider,
  type DpopSession,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  type OAuthClientProvider,
  PrivateKeyJwtProvider,
} from "@modelcontextprotocol/client";
import { DpopKey } from "./dpop.js";
import { type WorkloadIdentity, WorkloadIdentityProvider } from "./oauth-workload.js";

/** What one server's OAuth session keeps between runs. */
export interface McpOAuthRecord {
  clientInformation?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
  /** Which authorization server the pending sign-in went to, so its answer is checked against it (SEP-2352). */
  discoveryState?: OAuthDiscoveryState;
}

/**
 * What a sign-in brings back: the redirect's query parameters (`code` and `iss`, so the SDK checks which
 * authorization server answered, RFC 9207), or the bare `code`.
 */
export type McpAuthorizationAnswer = URLSearchParams | string;

/** Where OAuth sessions are kept, one per server; the default is a 0600 file per server. */
export interface McpOAuthStore {
  load(server: string, url: string): McpOAuthRecord;
  save(server: string, url: string, record: McpOAuthRecord): void;
}

export interface McpOAuthOptions {
  /**
   * Shows the user the authorization URL (opens a browser, or prints it) and resolves with what the
   * authorization server sent to `redirectUrl`: the redirect's query parameters (preferred: its `iss` is
   * checked, RFC 9207, which an authorization server that advertises it requires), or the bare `code`.
   * Without it (and without `clientCredentials`) a server that needs a user's authorization fails to
   * connect, naming the reason.
   */
  readonly authorize?: (server: string, authorizationUrl: URL) => Promise<McpAuthorizationAnswer>;
  /** Where the authorization server sends the user back (a loopback URL the caller listens on). */
  readonly redirectUrl?: string;
  /** A client registered beforehand, used instead of dynamic registration. */
  readonly client?: { readonly clientId: string; readonly clientSecret?: string };
  /**
   * Machine use, no user: the client-credentials grant with a secret, or with a private key (a signed JWT
   * assertion, RFC 7523). Tokens are kept in memory.
   */
  readonly clientCredentials?:
    | { readonly clientId: string; readonly clientSecret: string; readonly scope?: string }
    | {
        readonly clientId: string;
        readonly privateKey: string;
        readonly algorithm: string;
        readonly scope?: string;
      };
  /**
   * Enterprise-managed authorization (SEP-990, an extension): the user's ID token from the company's
   * identity provider is exchanged there for an identity assertion grant (RFC 8693), which the MCP
   * server's authorization server takes as a JWT bearer grant (RFC 7523), with this client's secret.
   */
  readonly enterprise?: {
    readonly clientId: string;
    readonly clientSecret: string;
    readonly idpTokenEndpoint: string;
    readonly idpClientId: string;
    readonly idToken: () => string | Promise<string>;
  };
  /**
   * Workload identity federation (SEP-1933, an extension): a workload with no user and no secret signs in
   * with the JWT its platform issued it, as a JWT bearer grant (RFC 7523). Tokens are kept in memory.
   */
  readonly workload?: WorkloadIdentity;
  /** Default: a 0600 file per server under the user's config folder (`…/bridle/mcp-oauth`). */
  readonly store?: McpOAuthStore;
  /** A client ID metadata document URL, used instead of dynamic registration where supported. */
  readonly clientMetadataUrl?: string;
  readonly clientName?: string;
}

/** The user's config folder for Bridle's MCP OAuth sessions. */
export function defaultOAuthDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userConfigFolder(env), "mcp-oauth");
}

/** One JSON file per server (named by server and URL), written atomically with mode 0600. */
export function fileOAuthStore(dir: string = defaultOAuthDir()): McpOAuthStore {
  const path = (server: string, url: string) => {
    const safe = server.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
    return join(dir, `${safe}-${createHash("sha256").update(url).digest("hex").slice(0, 16)}.json`);
  };
  return {
    load(server, url) {
      try {
        return JSON.parse(readFileSync(path(server, url), "utf8")) as McpOAuthRecord;
      } catch {
        return {};
      }
    },
    save(server, url, record) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileAtomicSync(path(server, url), JSON.stringify(record), { mode: 0o600 });
    },
  };
}

/**
 * The SDK's OAuthClientProvider for one server: discovery, registration, PKCE, refresh and step-up are
 * the SDK's; this keeps the session in the store and hands the authorization URL to `authorize`, whose
 * code the connection then finishes the flow with.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly #server: string;
  readonly #url: string;
  readonly #options: McpOAuthOptions;
  readonly #store: McpOAuthStore;
  #pendingCode: Promise<McpAuthorizationAnswer> | undefined;
  readonly #dpop = new DpopKey();

  constructor(server: string, url: string, options: McpOAuthOptions) {
    this.#server = server;
    this.#url = url;
    this.#options = options;
    this.#store = options.store ?? fileOAuthStore();
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  clientMetadataUrl?: string;

  get redirectUrl(): string {
    return this.#options.redirectUrl ?? "http://127.0.0.1/callback";
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#options.clientName ?? "Bridle",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const registered = this.#options.client;
    if (registered) {
      return {
        client_id: registered.clientId,
        ...(registered.clientSecret ? { client_secret: registered.clientSecret } : {}),
      };
    }
    return this.#record().clientInformation;
  }

  saveClientInformation(clientInformation: OAuthClientInformationMixed): void {
    this.#update({ clientInformation });
  }

  tokens(): OAuthTokens | undefined {
    const tokens = this.#record().tokens;
    // Bound to a key this process does not hold: presenting it could only fail.
    if (tokens?.token_type.toLowerCase() === "dpop" && !this.#dpop.made) return undefined;
    return tokens;
  }

  /** DPoP whenever the server's authorization server offers it; plain Bearer tokens otherwise. */
  dpop(): Promise<DpopSession> | undefined {
    return this.#dpop.session(this.#record().discoveryState?.authorizationServerMetadata);
  }

  saveTokens(tokens: OAuthTokens): void {
    // The discovery kept for the sign-in's callback leg is done with: the next sign-in discovers again, so
    // a protected resource that has moved to another authorization server is followed there, and this
    // client registers with it (the stored client is stamped with its issuer and set aside, SEP-2352).
    const { discoveryState: _done, ...rest } = this.#record();
    this.#store.save(this.#server, this.#url, { ...rest, tokens });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    const authorize = this.#options.authorize;
    this.#pendingCode = authorize
      ? authorize(this.#server, authorizationUrl)
      : Promise.reject(
          new Error(`MCP server "${this.#server}" needs a user's authorization, and nobody can give it here`),
        );
    // Awaited by the connection; a rejection there is its failure, not an unhandled one here.
    this.#pendingCode.catch(() => {});
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#update({ codeVerifier });
  }

  codeVerifier(): string {
    const verifier = this.#record().codeVerifier;
    if (!verifier) throw new Error(`no PKCE code verifier saved for MCP server "${this.#server}"`);
    return verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#update({ discoveryState: state });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#record().discoveryState;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const record = this.#record();
    if (scope === "all" || scope === "discovery") delete record.discoveryState;
    if (scope === "all" || scope === "client") delete record.clientInformation;
    if (scope === "all" || scope === "tokens") delete record.tokens;
    if (scope === "all" || scope === "verifier") delete record.codeVerifier;
    this.#store.save(this.#server, this.#url, record);
  }

  /** What `authorize` produced for the last redirect, once; undefined when none was asked for. */
  takeAuthorizationCode(): Promise<McpAuthorizationAnswer> | undefined {
    const pending = this.#pendingCode;
    this.#pendingCode = undefined;
    return pending;
  }

  #record(): McpOAuthRecord {
    return this.#store.load(this.#server, this.#url);
  }

  #update(change: Partial<McpOAuthRecord>): void {
    this.#store.save(this.#server, this.#url, { ...this.#record(), ...change });
  }
}

/** Finishes a sign-in on the transport with what `authorize` brought back (the `iss` checked when given). */
export function finishAuthorization(
  transport: { finishAuth(params: URLSearchParams): Promise<void>; finishAuth(code: string): Promise<void> },
  answer: McpAuthorizationAnswer,
): Promise<void> {
  return typeof answer === "string" ? transport.finishAuth(answer) : transport.finishAuth(answer);
}

/** The provider for one server: the client-credentials grant for machine use, else the user's flow. */
export function createOAuthProvider(
  server: string,
  url: string,
  options: McpOAuthOptions,
): OAuthClientProvider & { takeAuthorizationCode?(): Promise<McpAuthorizationAnswer> | undefined } {
  if (options.enterprise) return enterpriseProvider(url, options.enterprise);
  if (options.workload) return new WorkloadIdentityProvider(options.workload);
  const machine = options.clientCredentials;
  if (machine && "clientSecret" in machine) {
    return new ClientCredentialsProvider({
      clientId: machine.clientId,
      clientSecret: machine.clientSecret,
      ...(machine.scope ? { scope: machine.scope } : {}),
    });
  }
  if (machine) {
    return new PrivateKeyJwtProvider({
      clientId: machine.clientId,
      privateKey: machine.privateKey,
      algorithm: machine.algorithm,
      ...(machine.scope ? { scope: machine.scope } : {}),
    });
  }
  return new McpOAuthProvider(server, url, options);
}

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** SEP-990: an ID-JAG from the identity provider, presented to the authorization server as a JWT bearer grant. */
function enterpriseProvider(
  url: string,
  enterprise: NonNullable<McpOAuthOptions["enterprise"]>,
): OAuthClientProvider {
  // The client-credentials provider's client, secret and non-interactive flow, with the grant swapped.
  const base = new ClientCredentialsProvider({
    clientId: enterprise.clientId,
    clientSecret: enterprise.clientSecret,
  });
  const provider = Object.create(base) as OAuthClientProvider;
  provider.prepareTokenRequest = async (scope?: string) => {
    // The grant is for one authorization server (its issuer is the audience) and one resource.
    const resource = await discoverOAuthProtectedResourceMetadata(url);
    const server = resource.authorization_servers?.[0];
    if (!server) throw new Error(`${url} names no authorization server`);
    const issuer = (await discoverAuthorizationServerMetadata(server))?.issuer ?? server;
    const exchange = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      subject_token: await enterprise.idToken(),
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      audience: issuer,
      resource: resource.resource,
      client_id: enterprise.idpClientId,
    });
    if (scope) exchange.set("scope", scope);
    const response = await fetch(enterprise.idpTokenEndpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: exchange,
    });
    const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
    if (!response.ok || typeof answer.access_token !== "string") {
      throw new Error(
        `the identity provider refused the token exchange (HTTP ${response.status}): ${String(answer.error ?? "")}`,
      );
    }
    const grant = new URLSearchParams({ grant_type: JWT_BEARER, assertion: answer.access_token });
    if (scope) grant.set("scope", scope);
    return grant;
  };
  return provider;
}
