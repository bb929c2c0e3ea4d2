import type { CommandPolicyOptions, PolicyResult } from "./types.js";

/** One check sent to the policy process: everything it needs, as plain data. */
export interface HostRequest {
  readonly id: number;
  readonly command: string;
  readonly roots: readonly string[];
  readonly allowSecrets: boolean;
  readonly cwd: string | undefined;
  readonly options: Omit<CommandPolicyOptions, "isolation">;
}

export type HostReply =
  | { readonly id: number; readonly result: PolicyResult }
  | { readonly id: number; readonly error: string };
