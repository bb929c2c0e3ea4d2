import { BridleError } from "@bridle/core";

/**
 * The base URL an adapter sends requests (and its API key) to, checked before the first request: a value
 * that is not an http(s) URL ("localhost:8080/v1", a missing scheme) would otherwise fail every attempt
 * as a network error and be retried to the end of the budget. `source` names where the value came from
 * (an option, an environment variable), so the error says what to fix.
 */
export function checkedBaseUrl(value: string, source: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new BridleError(
      "invalid_config",
      `${source} ${JSON.stringify(value)} is not an http(s) URL: write it with its scheme, such as http://${value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")}`,
    );
  }
  return value;
}
