/** Messages from the agent to the spawner process (see spawner-client.ts). */
export type SpawnerRequest =
  /** Start a chain that waits for its command on fd 3 (a warm start); answered by `pipe`s, then `ready` or `failed`. */
  | {
      readonly type: "prepare";
      readonly id: number;
      /** Omitted when it is the previous prepare's (most are: a runner starts one kind of chain). */
      readonly argv?: readonly string[];
      /** Omitted when it is the previous prepare's. */
      readonly env?: Record<string, string>;
    }
  /** Kill a prepared chain that will not be used. */
  | { readonly type: "discard"; readonly id: number };

/** Messages from the spawner process to the agent. */
export type SpawnerReply =
  /** Sent with the chain's end of a pipe as the message's handle: its stdout, stderr or request (fd 3). */
  | { readonly type: "pipe"; readonly id: number; readonly pipe: "stdout" | "stderr" | "request" }
  | { readonly type: "ready"; readonly id: number; readonly pid: number }
  | {
      readonly type: "failed";
      readonly id: number;
      readonly error: string;
      /** Every chain would fail so: the agent stops asking. */
      readonly always?: boolean;
    }
  /** The chain's first process ended, as its parent saw it. */
  | {
      readonly type: "exit";
      readonly id: number;
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
    };
