// The page's data: a session's events projected once (on the Node side) into rows, turns and spans. Short
// text travels in the rows; anything long (tool results, full arguments, reasoning, edits) is a body, kept
// in a second JSON block the page parses only when a row is first opened. Plain JSON both ways.
import type { FileDiff } from "@bridle/core";

export interface UsageView {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly reasoning: number;
}

/** One model request and response: a turn. */
export interface TurnView {
  /** 1 for the session's first turn: its place among every run's turns, subagents' included. */
  readonly n: number;
  /** As shown: "Turn 3" counts the session's own turns; a subagent's are counted within its run. */
  readonly label: string;
  readonly runId: string;
  readonly model: string;
  readonly start: number;
  readonly durationMs: number;
  readonly usage: UsageView;
  /** US dollars, when the model's price is known. */
  readonly cost?: number;
  readonly stop: string;
  readonly toolCalls: number;
}

/** A bar of the waterfall. */
export interface SpanView {
  readonly kind: "model" | "tool";
  readonly label: string;
  /** A tool span's call, so the page can go from the bar to the call's row. */
  readonly callId?: string;
  readonly turn: number;
  readonly start: number;
  readonly durationMs: number;
  readonly failed?: boolean;
}

/**
 * What a model request sent besides the messages, recorded when it changed: the system prompt and the
 * tools, as of the request that opened `turn`. Subagents' setups come with their agent's name.
 */
export interface SetupView {
  readonly seq: number;
  /** The turn the request answered with. */
  readonly turn: number;
  readonly agent?: string;
  readonly depth?: number;
  /** A body: the system prompt ("" for none). */
  readonly system: number;
  readonly tools: readonly {
    readonly name: string;
    /** A body each: the description, and the input schema as indented JSON. */
    readonly description: number;
    readonly schema: number;
  }[];
}

interface RowBase {
  readonly seq: number;
  readonly time: number;
  /** The turn the row belongs to (0: before the first model response). */
  readonly turn: number;
  /** How deep in subagents the row's run is: 0 for the session's own runs, 1 under a call's subagent… */
  readonly depth?: number;
}

export type RowView = RowBase &
  (
    | { readonly kind: "run"; readonly text: string }
    | { readonly kind: "end"; readonly ok: boolean; readonly text: string }
    | { readonly kind: "turn"; readonly n: number; readonly label: string }
    | { readonly kind: "user"; readonly text: string; readonly body?: number }
    | { readonly kind: "assistant"; readonly text: string; readonly body?: number }
    | { readonly kind: "reasoning"; readonly preview: string; readonly body: number }
    | {
        readonly kind: "call";
        readonly id: string;
        readonly name: string;
        readonly summary: string;
        readonly args: number;
        readonly result?: number;
        /**
         * "failed": the call ran but what it ran failed (a command that exited non-zero or timed out),
         * so it is drawn as a failure though the tool reported no error.
         */
        readonly status: "ok" | "error" | "failed" | "pending";
        readonly errorKind?: string;
        readonly durationMs?: number;
        /** A refusal (a hook's or a policy's Denied, a person's ApprovalRejected): its first line, shown unfolded. */
        readonly decision?: string;
        /** An edit the call made or tried: a body holding an EditView as JSON. */
        readonly edit?: number;
      }
    | {
        readonly kind: "approval";
        readonly name: string;
        readonly summary: string;
        readonly decision?: "approved" | "rejected";
        readonly reason?: string;
      }
    | { readonly kind: "hook"; readonly text: string }
    | { readonly kind: "notice"; readonly text: string; readonly body?: number }
    | {
        readonly kind: "fact";
        readonly factKind: string;
        readonly text: string;
        /** The fact's fields as readable `name: value` lines. */
        readonly body: number;
        /** A failing check or a command that exited non-zero. */
        readonly failed?: true;
      }
    | { readonly kind: "damage"; readonly text: string }
    | { readonly kind: "branch"; readonly text: string }
  );

/** A file a command changed, named without its lines, and why (binary, secret, too large…). */
export interface UnshownFile {
  readonly path: string;
  readonly change: string;
  readonly reason: string;
}

/** What an edit changed, as the tool call and its result recorded it; the page draws the diff. */
export type EditView =
  /**
   * The change as the tool applied it: its result's `details.diffs` (core's FileDiff). A command's result
   * also names files it changed without their lines (binary, secret, too large) and how many more changed.
   */
  | {
      readonly kind: "files";
      readonly files: readonly FileDiff[];
      readonly unshown?: readonly UnshownFile[];
      /** Changed files neither drawn nor named (past the command's bounds). */
      readonly more?: number;
    }
  | {
      readonly kind: "replace";
      readonly path: string;
      readonly hunks: readonly { readonly line?: number; readonly old: string; readonly new: string }[];
    }
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | { readonly kind: "patch"; readonly text: string };

export interface BranchView {
  readonly id: string;
  readonly title?: string;
  /** The sequence it branched at. */
  readonly seq: number;
}

export interface SessionView {
  readonly session: {
    readonly id: string;
    readonly title?: string;
    readonly createdAt: number;
    readonly updatedAt: number;
    readonly lastSeq: number;
    readonly parent?: { readonly sessionId: string; readonly seq: number };
  };
  /** Sessions forked from this one. */
  readonly branches: readonly BranchView[];
  readonly summary: {
    /**
     * A run of the session has started and not ended, and its process still runs, when the store can
     * tell (`SessionStore.writing`): a process that died mid-run leaves its run open but is not live. A
     * served page says "live" only then.
     */
    readonly running?: true;
    readonly events: number;
    readonly runs: number;
    readonly turns: number;
    readonly toolCalls: number;
    readonly failedCalls: number;
    readonly usage: UsageView;
    /** Undefined when some turn's price is unknown. */
    readonly cost?: number;
    readonly durationMs: number;
  };
  readonly turns: readonly TurnView[];
  readonly spans: readonly SpanView[];
  readonly rows: readonly RowView[];
  /** The system prompt and tool list each time they changed (sessions recorded before they were: none). */
  readonly setups: readonly SetupView[];
  /** The coding overlay's evidence handoff, when the session has one. */
  readonly handoff?: string;
}

/** How the page finds more data when it is served live (absent in an exported file). */
export interface LiveSource {
  /** The session's view and bodies now, as one JSON object. */
  readonly dataUrl: string;
  readonly eventsUrl: string;
  /** Prefix of another session's page in the same store (branches and the parent link to it). */
  readonly sessionBase: string;
}

/** A session in the server's list page. */
export interface ListedSession {
  readonly store: string;
  readonly id: string;
  readonly title?: string;
  readonly updatedAt: number;
  readonly events: number;
  readonly parent?: { readonly sessionId: string; readonly seq: number };
  readonly href: string;
}

/** What the page script reads first, from the `bridle-view` JSON block. */
export type PageData =
  | {
      readonly page: "session";
      readonly view: SessionView;
      readonly live?: LiveSource;
      /** An export's neighbours in the session tree (its fork parent, its branches): shown in the same page. */
      readonly related?: readonly SessionView[];
    }
  | {
      readonly page: "list";
      readonly sessions: readonly ListedSession[];
      readonly stores: readonly string[];
    };
