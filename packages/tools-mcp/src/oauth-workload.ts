import type { OAuthClientMetadata, OAuthClientProvider, OAuthTokens } from "@modelcontextprotocol/client";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** A workload's sign-in for workload identity federation (SEP-1933). */
export interface WorkloadIdentity {
  /** The client ID the authorization server knows the workload by. */
  readonly clientId: string;
  /**
   * The workload's JWT from its platform (a Kubernetes service account token, a CI job's OIDC token),
   * issued for the authorization server as its audience; asked for at each token request, so a
   * short-lived token is read fresh.
   */
  readonly assertion: () => string | Promise<string>;
  /** Scopes to ask for when the server names none. */
  readonly scope?: string;
}

/**
 * Workload identity federation (SEP-1933, an extension): no user and no client secret, the workload's own
 * JWT is presented as a JWT bearer grant (RFC 7523 §2.1). Tokens are kept in memory. A refused grant is
 * the connection's failure, named; it is neither retried nor swapped for another grant.
 */
export class WorkloadIdentityProvider implements OAuthClientProvider {
  readonly #identity: WorkloadIdentity;
  #tokens: OAuthTokens | undefined;

  constructor(identity: WorkloadIdentity) {
    this.#identity = identity;
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Bridle workload",
      redirect_uris: [],
      grant_types: [JWT_BEARER],
      token_endpoint_auth_method: "none",
      ...(this.#identity.scope ? { scope: this.#identity.scope } : {}),
    };
  }

  clientInformation(): { client_id: string } {
    return { client_id: this.#identity.clientId };
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }

  redirectToAuthorization(): void {
    throw new Error("a workload identity signs in without a user; there is no authorization page");
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error("a workload identity signs in without a user; there is no PKCE verifier");
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const grant = new URLSearchParams({
      grant_type: JWT_BEARER,
      assertion: await this.#identity.assertion(),
    });
    const wanted = scope ?? this.#identity.scope;
    if (wanted) grant.set("scope", wanted);
    return grant;
  }
}
