import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { type FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Editor, newSession, startEditor } from "./acp-editor.js";
import { call, fakeOpenAI, toolOutputsSent } from "./cli-harness.js";

// The agent's questions over ACP: an editor that renders forms (elicitation) gets the options and a field for
// the person's own words; one that does not gets a permission request, which picks one option only.
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
const editors: Editor[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-acp-questions-"));
  repo = join(dir, "repo");
  execFileSync("git", ["init", "-q", repo]);
});
afterEach(async () => {
  for (const editor of editors.splice(0)) await editor.close();
  await server?.close();
  server = undefined;
  await cleanup();
});

const askStore = (id: string) =>
  call(id, "request_user_input", {
    questions: [
      {
        id: "store",
        header: "Store",
        question: "Which store should it use?",
        options: [
          { label: "Postgres", description: "a server" },
          { label: "SQLite", description: "one file" },
        ],
      },
    ],
  });

function editor(fake: FakeProviderServer, ...more: string[]): Editor {
  const started = startEditor(dir, fake, ...more);
  editors.push(started);
  return started;
}

async function prompt(target: Editor, sessionId: string, text: string): Promise<string> {
  const answer = await target.connection.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  return answer.stopReason;
}

describe("questions in an editor that renders forms", () => {
  it("offers the options and a free-text answer; both reach the model", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("s1", "tool_search", { query: "request_user_input" })] },
      { toolCalls: [askStore("q1")] },
      { toolCalls: [askStore("q2")] },
      { text: "Noted." },
    ]);
    const forms = editor(server);
    let round = 0;
    forms.fill = () =>
      ++round === 1
        ? { action: "accept", content: { choice: "Postgres", other: "DuckDB, in a file beside the repo" } }
        : { action: "accept", content: { choice: "SQLite" } };
    const created = await newSession(forms, repo, { forms: true });
    expect(await prompt(forms, created.sessionId, "set up storage"), forms.stderr()).toBe("end_turn");
    expect(forms.permissions).toHaveLength(0);
    expect(forms.forms).toHaveLength(2);
    const [form] = forms.forms;
    expect(form).toMatchObject({
      mode: "form",
      sessionId: created.sessionId,
      message: "Store: Which store should it use?",
    });
    const schema = (form as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema;
    expect(schema.properties.choice).toMatchObject({
      type: "string",
      oneOf: [
        { const: "Postgres", title: "Postgres: a server" },
        { const: "SQLite", title: "SQLite: one file" },
      ],
    });
    expect(schema.properties.other).toMatchObject({ type: "string", maxLength: 2000 });
    const outputs = toolOutputsSent(server).join("\n");
    // The person's own words win over the choice left in the form.
    expect(outputs).toContain("DuckDB, in a file beside the repo");
    expect(outputs).toContain(JSON.stringify({ answers: { store: { answers: ["SQLite"] } } }));
  });

  it("takes the person's words instead of a plan, and a declined form is no answer", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("p1", "exit_plan_mode", { plan: "1. Rewrite everything." })] },
      { toolCalls: [call("p2", "exit_plan_mode", { plan: "1. Rewrite the parser only." })] },
      { text: "Still planning." },
    ]);
    const forms = editor(server, "--plan");
    let round = 0;
    forms.fill = () =>
      ++round === 1
        ? { action: "accept", content: { other: "only the parser, please" } }
        : { action: "decline" };
    const created = await newSession(forms, repo, { forms: true });
    expect(await prompt(forms, created.sessionId, "plan a rewrite"), forms.stderr()).toBe("end_turn");
    expect(forms.forms.map((f) => f.message.split("\n")[0])).toEqual([
      "Plan: Accept this plan and switch to workspace mode?",
      "Plan: Accept this plan and switch to workspace mode?",
    ]);
    expect(forms.forms[0]?.message).toContain("1. Rewrite everything.");
    const outputs = toolOutputsSent(server);
    expect(outputs[0]).toContain("The user did not accept the plan and said: only the parser, please");
    expect(outputs[1]).toContain("The user did not accept the plan.");
    expect(forms.updates.some((u) => u.sessionUpdate === "current_mode_update")).toBe(false);
  });
});

describe("questions in an editor without forms", () => {
  it("asks through the permission request, one option picked", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("s1", "tool_search", { query: "request_user_input" })] },
      { toolCalls: [askStore("q1")] },
      { text: "Using SQLite." },
    ]);
    const plain = editor(server);
    plain.answer = (request) => request.options[1]?.optionId ?? "cancelled";
    const created = await newSession(plain, repo);
    expect(await prompt(plain, created.sessionId, "set up storage"), plain.stderr()).toBe("end_turn");
    expect(plain.forms).toHaveLength(0);
    expect(plain.permissions.map((p) => p.toolCall.title)).toEqual(["Store: Which store should it use?"]);
    expect(toolOutputsSent(server).join("\n")).toContain(
      JSON.stringify({ answers: { store: { answers: ["SQLite"] } } }),
    );
  });
});
