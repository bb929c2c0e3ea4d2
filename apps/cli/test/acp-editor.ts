import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { type FakeProviderServer, openaiResponsesFormat } from "@bridle/testing";
import { onTestFailed } from "vitest";
import { CLI, NODE_FLAGS } from "./cli-harness.js";

/** One editor connected to one `bridle acp` process: what it was sent, and how it answers permissions. */
export interface Editor {
  readonly connection: ClientConnection;
  readonly updates: SessionUpdate[];
  readonly permissions: RequestPermissionRequest[];
  /** Answers each permission request with an option id, or "cancelled"; the default allows once. */
  answer: (request: RequestPermissionRequest) => string | Promise<string>;
  /** The forms the agent asked for (elicitation/create), answered by `fill` (default: declined). */
  readonly forms: CreateElicitationRequest[];
  fill: (request: CreateElicitationRequest) => CreateElicitationResponse;
  readonly stderr: () => string;
  /** The process's exit code once it ended, else null. */
  readonly exitCode: () => number | null;
  close(): Promise<void>;
}

/**
 * Starts `bridle acp` (the built CLI) against a fake OpenAI server, its data and config in `dir`, and
 * connects the ACP SDK's client side to it over stdio, as an editor does.
 */
export function startEditor(dir: string, fake: FakeProviderServer, ...more: string[]): Editor {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [
      ...NODE_FLAGS,
      CLI,
      "acp",
      "--provider",
      "openai",
      "--model",
      "m",
      "--profile",
      "generic",
      "--edit-format",
      "replace",
      "--sandbox",
      "off",
      "--base-url",
      openaiResponsesFormat.baseUrl(fake.url),
      ...more,
    ],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        XDG_DATA_HOME: join(dir, "data"),
        XDG_CONFIG_HOME: join(dir, "config"),
        OPENAI_API_KEY: "k",
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const updates: SessionUpdate[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const forms: CreateElicitationRequest[] = [];
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const editor: Editor = {
    connection: undefined as unknown as ClientConnection,
    updates,
    permissions,
    answer: () => "allow",
    forms,
    fill: () => ({ action: "decline" }),
    stderr: () => stderr,
    exitCode: () => child.exitCode,
    async close() {
      editor.connection.close();
      child.stdin.end();
      await exited;
    },
  };
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissions.push(params);
      const optionId = await editor.answer(params);
      return optionId === "cancelled"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId } };
    })
    .onRequest("elicitation/create", async ({ params }) => {
      forms.push(params);
      return editor.fill(params);
    });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  Object.assign(editor, { connection: app.connect(stream) });
  onTestFailed(() => {
    process.stderr.write(`bridle acp stderr (exit ${child.exitCode}):\n${stderr}\n`);
  });
  return editor;
}

/**
 * initialize (saying the editor renders forms when `forms`), then session/new in `cwd`: the new session's
 * id and its modes.
 */
export async function newSession(editor: Editor, cwd: string, options: { readonly forms?: boolean } = {}) {
  await editor.connection.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: options.forms ? { elicitation: { form: {} } } : {},
  });
  return editor.connection.agent.request("session/new", { cwd, mcpServers: [] });
}

/** The text of a permission request's tool call content, joined. */
export function permissionText(request: RequestPermissionRequest | undefined): string {
  return (request?.toolCall.content ?? [])
    .map((item) => (item.type === "content" && item.content.type === "text" ? item.content.text : ""))
    .join("\n");
}
