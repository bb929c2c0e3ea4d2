import { isSecretPath } from "@bridle/core";

/** A secret-looking finding in added text. `what` names the pattern; the value itself is never kept. */
export interface SecretFinding {
  readonly what: string;
  readonly line: number;
}

// Known credential shapes. Each names its family; the match itself never leaves this module.
const PATTERNS: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: "AWS access key id", pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/ },
  {
    what: "AWS secret access key",
    pattern: /aws_?secret_?access_?key\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}\b/i,
  },
  { what: "GitHub token", pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/ },
  { what: "GitHub fine-grained token", pattern: /\bgithub_pat_[A-Za-z0-9_]{60,255}\b/ },
  { what: "Anthropic API key", pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}/ },
  {
    what: "OpenAI API key",
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}/,
  },
  { what: "OpenAI-style API key", pattern: /\bsk-(?:proj-|svcacct-)[A-Za-z0-9_-]{40,}/ },
  { what: "Slack token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { what: "Stripe secret key", pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}/ },
  { what: "Google API key", pattern: /\bAIza[A-Za-z0-9_-]{35}\b/ },
  { what: "private key block", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { what: "JSON web token", pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/ },
  { what: "credentials in a URL", pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s:/@]{3,}@[^\s/]+/i },
];

// A long, random-looking value next to a name that says it is secret, or any long random token. Random
// text nears log2(length) bits a character; identifiers and prose stay well below that share of it.
const SECRET_NAME =
  /(?:secret|token|passw(?:or)?d|api_?key|apikey|access_?key|private_?key|auth|credential)/i;
const CANDIDATE = /[A-Za-z0-9+/_=-]{16,}/g;
const NAMED_ENTROPY = 3.5;
const BARE_MIN_LENGTH = 24;
const BARE_SHARE = 0.8;

export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function classes(token: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(token)).length;
}

function highEntropy(line: string): boolean {
  for (const match of line.matchAll(CANDIDATE)) {
    const token = match[0];
    const entropy = shannonEntropy(token);
    // The secret-sounding name must be beside the value, not a word inside it.
    const named = SECRET_NAME.test(line.replace(token, " "));
    // A hex digest or a run of words is not a secret by shape alone: bare tokens need all three classes.
    if (named && classes(token) >= 2 && entropy >= NAMED_ENTROPY) return true;
    const bare = Math.log2(Math.min(token.length, 64)) * BARE_SHARE;
    if (token.length >= BARE_MIN_LENGTH && classes(token) === 3 && entropy >= bare) return true;
  }
  return false;
}

/**
 * Secret-looking content among added lines (`firstLine` is the 1-based line of the first one). A file
 * whose name holds secrets (.env, keys) is a finding on its own. `knownShapesOnly` leaves out the entropy
 * guess, for whole files nobody reviews line by line (build output is full of random-looking text).
 */
export function scanAddedLines(
  path: string,
  lines: readonly string[],
  firstLine: number,
  options: { readonly knownShapesOnly?: boolean } = {},
): SecretFinding[] {
  const findings: SecretFinding[] = [];
  lines.forEach((line, index) => {
    const at = firstLine + index;
    const known = PATTERNS.find(({ pattern }) => pattern.test(line));
    if (known) findings.push({ what: known.what, line: at });
    else if (!options.knownShapesOnly && highEntropy(line))
      findings.push({ what: "high-entropy string", line: at });
  });
  if (lines.length > 0 && isSecretPath(path))
    findings.unshift({ what: "content in a secret file", line: firstLine });
  return findings;
}

/** `text` with every known credential shape replaced by its family's name, for showing a command line. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const { what, pattern } of PATTERNS) {
    out = out.replace(new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`), `[${what} redacted]`);
  }
  return out;
}
