/**
 * Which hosts the tool may reach. An entry is a host name ("docs.python.org"), a wildcard for its
 * subdomains ("*.github.com", which does not match "github.com" itself), or either with a port
 * ("127.0.0.1:8080"); without a port, any port matches. IPv6 addresses go in brackets ("[::1]:8080").
 */
export class HostAllowlist {
  readonly entries: readonly string[];
  readonly #rules: readonly { readonly host: string; readonly wildcard: boolean; readonly port?: string }[];

  constructor(entries: readonly string[]) {
    this.entries = entries;
    this.#rules = entries.map(parseEntry);
  }

  /** Whether the URL's host (and port) is allowed. */
  allows(url: URL): boolean {
    const host = url.hostname.toLowerCase();
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    return this.#rules.some((rule) => {
      if (rule.port !== undefined && rule.port !== port) return false;
      return rule.wildcard ? host.endsWith(`.${rule.host}`) : host === rule.host;
    });
  }
}

function parseEntry(entry: string): { host: string; wildcard: boolean; port?: string } {
  const trimmed = entry.trim().toLowerCase();
  const wildcard = trimmed.startsWith("*.");
  // Parse through URL so that the entry is normalized exactly as request URLs are (IDN, IPv6, case).
  let parsed: URL;
  try {
    parsed = new URL(`http://${wildcard ? trimmed.slice(2) : trimmed}`);
  } catch {
    throw new RangeError(`allowedHosts: "${entry}" is not a host name, a *.wildcard or host:port`);
  }
  if (parsed.pathname !== "/" || parsed.username || parsed.search || parsed.hash || parsed.hostname === "") {
    throw new RangeError(`allowedHosts: "${entry}" must be a bare host (no scheme, path or credentials)`);
  }
  // new URL drops the default port 80, so look for an explicit one in the entry itself.
  const explicitPort = /:(\d+)$/.exec(trimmed)?.[1];
  return {
    host: parsed.hostname,
    wildcard,
    ...(explicitPort === undefined ? {} : { port: String(Number(explicitPort)) }),
  };
}
