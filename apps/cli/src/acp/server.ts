// The ACP agent: an editor's requests (initialize, session/new, load, prompt, cancel, set_mode) answered
// with the agent the recipe composes, one AcpSession per editor session.
import {
  type AgentApp,
  agent as acpAgent,
  PROTOCOL_VERSION,
  RequestError,
  type SessionUpdate,
  type Stream,
} from "@agentclientprotocol/sdk";
import { describeFailure } from "../cli-error.js";
import type { CodingChoice } from "../run/coding.js";
import { resumeInMode, storedSessionMode } from "../run/session-mode.js";
import type { CliFlags } from "../settings/args.js";
import { VERSION } from "../version.js";
import { isAcpMode, modeState } from "./modes.js";
import { PROMPT_CAPABILITIES } from "./prompt-content.js";
import { AcpSession } from "./session.js";
import { sessionSettings } from "./session-settings.js";

export interface AcpServerOptions {
  /** The flags `bridle acp` was started with: every session's settings start from them. */
  readonly flags: CliFlags;
  readonly coding: CodingChoice;
  /** Lines for the person (stderr: stdout carries the protocol). */
  readonly warn: (line: string) => void;
  /** --plan: every new session starts in plan mode (the editor's mode picker leaves it). */
  readonly plan?: boolean;
}

/** Serves one client over `stream` until it closes; then every session's agent is closed. */
export async function serveAcp(stream: Stream, options: AcpServerOptions): Promise<void> {
  const sessions = new Map<string, AcpSession>();
  const app = acpApp(sessions, options);
  const connection = app.connect(stream);
  try {
    await connection.closed;
  } finally {
    await Promise.allSettled([...sessions.values()].map((session) => session.close()));
  }
}

function acpApp(sessions: Map<string, AcpSession>, options: AcpServerOptions): AgentApp {
  const { flags, coding, warn } = options;
  // Said at initialize: whether the editor renders forms, where a question can take the person's own words.
  let forms = false;
  const find = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (!session) throw RequestError.resourceNotFound(`session ${id}`);
    return session;
  };
  return acpAgent({ name: "bridle" })
    .onRequest("initialize", ({ params }) => {
      forms = params.clientCapabilities?.elicitation?.form != null;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { ...PROMPT_CAPABILITIES },
          mcpCapabilities: { http: true, sse: true },
        },
        agentInfo: { name: "bridle", title: "Bridle", version: VERSION },
        authMethods: [],
      };
    })
    .onRequest("session/new", ({ params, client }) =>
      said(async () => {
        const settings = await sessionSettings(flags, params.cwd, params.mcpServers, warn);
        const session = await AcpSession.create(settings, coding, client, forms);
        if (options.plan) session.setMode("plan");
        sessions.set(session.id, session);
        return { sessionId: session.id, modes: modeState(session.mode) };
      }),
    )
    .onRequest("session/load", ({ params, client }) =>
      said(async () => {
        await sessions.get(params.sessionId)?.close();
        sessions.delete(params.sessionId);
        const settings = await sessionSettings(flags, params.cwd, params.mcpServers, warn);
        const send = (update: SessionUpdate) =>
          client.notify("session/update", { sessionId: params.sessionId, update });
        const session = await AcpSession.load(params.sessionId, settings, coding, client, send, forms);
        // The session comes back in the mode of its last turn, unless `bridle acp --permission-mode` chose.
        if (flags.permissionMode === undefined) {
          const recorded = await storedSessionMode(settings, params.sessionId);
          const { settings: resumed, plan } = resumeInMode(settings, recorded, warn);
          if (resumed.permissionMode !== settings.permissionMode) session.setMode(resumed.permissionMode);
          if (plan) session.setMode("plan");
        }
        sessions.set(session.id, session);
        return { modes: modeState(session.mode) };
      }),
    )
    .onRequest("session/prompt", ({ params, client }) =>
      said(async () => {
        const session = find(params.sessionId);
        const send = (update: SessionUpdate) =>
          client.notify("session/update", { sessionId: session.id, update });
        return { stopReason: await session.prompt(params.prompt, send) };
      }),
    )
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", ({ params }) => {
      if (!isAcpMode(params.modeId)) {
        throw RequestError.invalidParams(undefined, `no mode "${params.modeId}"`);
      }
      find(params.sessionId).setMode(params.modeId);
      return {};
    });
}

/**
 * A failure as the editor shows it: the one line `bridle run` would print (a missing API key, a bad config)
 * as the error's message, rather than the SDK's bare "Internal error".
 */
async function said<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RequestError) throw error;
    throw new RequestError(-32603, describeFailure(error).line.replace(/^bridle: /, ""));
  }
}
