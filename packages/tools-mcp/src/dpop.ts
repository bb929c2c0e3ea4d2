import { DPOP_SUPPORTED_ALGS, type DpopAlg, DpopSession } from "@modelcontextprotocol/client";

// The first of these an authorization server advertises is used: ES256 is what RFC 9449's examples and
// most servers use, and EdDSA keys are the smallest.
const PREFERENCE: readonly DpopAlg[] = ["ES256", "EdDSA", ...DPOP_SUPPORTED_ALGS];

/** The signing algorithm to use with an authorization server, from its metadata; none if it offers no DPoP. */
export function dpopAlgorithm(metadata: unknown): DpopAlg | undefined {
  const advertised = (metadata as { dpop_signing_alg_values_supported?: unknown } | undefined)
    ?.dpop_signing_alg_values_supported;
  if (!Array.isArray(advertised)) return undefined;
  return PREFERENCE.find((alg) => advertised.includes(alg));
}

/**
 * One server's DPoP key (SEP-1932, RFC 9449), made once its authorization server advertises DPoP and then
 * kept for the life of the process: tokens are bound to it, and the SDK signs each token request and each
 * request to the server with it, answering nonce challenges. The key is not extractable and never stored,
 * so a token bound to an earlier process's key is of no use and is not presented.
 */
export class DpopKey {
  #session: Promise<DpopSession> | undefined;

  /** The session, made now if `metadata` (the authorization server's) advertises an algorithm. */
  session(metadata: unknown): Promise<DpopSession> | undefined {
    if (this.#session) return this.#session;
    const alg = dpopAlgorithm(metadata);
    if (alg) this.#session = DpopSession.create({ alg });
    return this.#session;
  }

  get made(): boolean {
    return this.#session !== undefined;
  }
}
