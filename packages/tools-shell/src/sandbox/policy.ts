import { BridleError } from "@bridle/core";
import { z } from "zod";

/** Network access for commands: none, all, or (where a runner can enforce it) a list of hosts. */
export const networkPolicySchema = z.union([
  z.literal("disabled"),
  z.literal("enabled"),
  z.object({ allow_hosts: z.array(z.string().min(1)).min(1) }).strict(),
]);

export const DEFAULT_ALLOWED_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TERM",
  "TZ",
  "TMPDIR",
  "SHELL",
] as const;

export const sandboxPolicySchema = z
  .object({
    shell_enabled: z.boolean().default(true),
    network: networkPolicySchema.default("disabled"),
    /** Environment variable names passed through; everything else (tokens, keys) is dropped. */
    allowed_env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([...DEFAULT_ALLOWED_ENV]),
    /** Default soft timeout of a command; a call may ask for less or more up to this bound (see the bash tool). */
    max_execution_ms: z.number().int().positive().default(120_000),
    /** Bytes of stdout the model sees (head and tail kept); the full output goes to a file. */
    max_stdout_bytes: z.number().int().positive().default(30_000),
    max_stderr_bytes: z.number().int().positive().default(10_000),
    /** Processes (and threads) the command may have at once; unset means no limit. */
    max_processes: z.number().int().positive().optional(),
    /** Memory of the command in MiB; unset means no limit. */
    max_memory_mb: z.number().int().positive().optional(),
  })
  .strict();

export type SandboxPolicy = z.output<typeof sandboxPolicySchema>;
export type SandboxPolicyInput = z.input<typeof sandboxPolicySchema>;
export type NetworkPolicy = z.output<typeof networkPolicySchema>;

/** Validate a policy, filling defaults; a bad policy is a configuration error, not a tool failure. */
export function sandboxPolicy(input: SandboxPolicyInput = {}): SandboxPolicy {
  const parsed = sandboxPolicySchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "policy"}: ${issue.message}`,
    );
    throw new BridleError("invalid_config", `invalid sandbox policy: ${problems.join("; ")}`);
  }
  return parsed.data;
}

/** How a runner deals with one limit of the policy. */
export interface LimitEnforcement {
  readonly limit:
    | "network"
    | "filesystem"
    | "max_execution_ms"
    | "max_processes"
    | "max_memory_mb"
    | "allowed_env"
    | "other_processes"
    | "output";
  readonly enforced: boolean;
  /** How it is enforced, or why it cannot be. */
  readonly how: string;
}

/** The environment a command gets: only the allowed names, with a usable PATH. */
export function commandEnv(
  policy: SandboxPolicy,
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of policy.allowed_env) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return env;
}
