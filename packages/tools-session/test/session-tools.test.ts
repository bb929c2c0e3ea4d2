import { Harness, sessionSink } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { ScriptedModel, sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionTools } from "../src/index.js";
import { callTool } from "./helpers.js";

let store: JsonlSessionStore;
let cleanup: () => Promise<void>;
const tools = () => sessionTools(store);

beforeEach(async () => {
  const made = await tempWorkspace("bridle-session-tools-");
  cleanup = made.cleanup;
  store = await JsonlSessionStore.open({ dir: made.dir });
});
afterEach(async () => {
  await store.close();
  await cleanup();
});

describe("session_list", () => {
  it("says when there is nothing yet", async () => {
    expect((await callTool(tools(), "session_list", {})).text).toBe("No sessions recorded yet.");
  });

  it("lists ids, event counts, titles and forks, newest first, up to the limit", async () => {
    await store.createSession({ id: "alpha", title: "Fix login" });
    await store.append("alpha", sampleRunEvents());
    await store.fork("alpha", 3, { id: "beta" });
    const result = await callTool(tools(), "session_list", {});
    expect(result.isError).toBe(false);
    expect(result.text).toContain("alpha  updated ");
    expect(result.text).toContain('9 events  "Fix login"');
    expect(result.text).toContain("beta  updated");
    expect(result.text).toContain("4 events  (fork of alpha at event 3)");
    expect((await callTool(tools(), "session_list", { limit: 1 })).text.split("\n")).toHaveLength(1);
    expect((await callTool(tools(), "session_list", { limit: 0 })).errorKind).toBe("InvalidInput");
  });
});

describe("session_history", () => {
  it("shows the last messages of a recorded run", async () => {
    await store.createSession({ id: "recorded" });
    const model = new ScriptedModel([{ text: "first answer" }, { text: "second answer" }]);
    const harness = new Harness({ model });
    const first = await harness.run({ prompt: "first question", sink: sessionSink(store, "recorded") });
    await harness.run({
      prompt: "second question",
      history: first.messages,
      sink: sessionSink(store, "recorded"),
    });
    const result = await callTool(tools(), "session_history", { session_id: "recorded", last_n: 2 });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      "Session recorded: 4 messages; showing 2.\n[3] user: second question\n[4] assistant: second answer",
    );
    const all = await callTool(tools(), "session_history", { session_id: "recorded" });
    expect(all.text).toContain("[1] user: first question");
  });

  it("shows tool calls and results, clipping long ones", async () => {
    await store.createSession({ id: "s" });
    await store.append("s", sampleRunEvents({ toolOutput: "y".repeat(5000) }));
    const result = await callTool(tools(), "session_history", { session_id: "s", last_n: 3 });
    expect(result.text).toContain('→ read_file({"path":"notes.md"})');
    expect(result.text).toContain("[3] tool read_file: yyyy");
    expect(result.text).toContain("… [3000 more characters]");
  });

  it("tells the model about unknown and malformed ids", async () => {
    const missing = await callTool(tools(), "session_history", { session_id: "nope" });
    expect(missing.errorKind).toBe("NotFound");
    expect(missing.text).toContain("session_list");
    expect((await callTool(tools(), "session_history", { session_id: "../etc" })).errorKind).toBe(
      "InvalidInput",
    );
    expect((await callTool(tools(), "session_history", { session_id: "s", last_n: 0 })).errorKind).toBe(
      "InvalidInput",
    );
  });
});

describe("session_search", () => {
  it("returns ranked hits with where they are", async () => {
    await store.createSession({ id: "a" });
    await store.createSession({ id: "b" });
    await store.append("a", sampleRunEvents({ prompt: "the staging deploy failed" }));
    await store.append("b", sampleRunEvents({ prompt: "deploy deploy deploy to staging now" }));
    const result = await callTool(tools(), "session_search", { query: "staging deploy", max_results: 5 });
    expect(result.isError).toBe(false);
    const lines = result.text.split("\n");
    expect(lines[0]).toMatch(/^1\. b event 0 \(run_started\): .*\[deploy\]/);
    expect(lines[1]).toMatch(/^2\. a event 0 \(run_started\)/);
    expect(lines).toHaveLength(2);
    expect(
      (await callTool(tools(), "session_search", { query: "deploy", max_results: 1 })).text.split("\n"),
    ).toHaveLength(1);
  });

  it("says when nothing matches and refuses an empty query", async () => {
    expect((await callTool(tools(), "session_search", { query: "absent" })).text).toBe(
      'No matches for "absent".',
    );
    expect((await callTool(tools(), "session_search", { query: "  " })).errorKind).toBe("InvalidInput");
    expect((await callTool(tools(), "session_search", { query: "x", max_results: 51 })).errorKind).toBe(
      "InvalidInput",
    );
  });
});
