import {
  BridleError,
  defineTool,
  Harness,
  type RunEvent,
  type SessionStore,
  sessionSink,
  sessionTranscript,
} from "@bridle/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedModel } from "../scripted-model.js";
import { numberedEvent, sampleRunEvents } from "./events.js";
import { readAll } from "./read-all.js";

/** A place a store keeps its data: open it (again and again), then remove it. */
export interface StoreLocation {
  /** A store over this location. Called again after `close` to check what persisted. */
  open(): Promise<SessionStore>;
  cleanup(): Promise<void>;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(BridleError);
    return (error as BridleError).code;
  }
}

/**
 * The behaviour every SessionStore promises, as a vitest suite. Call it from a test file with a function
 * that makes a fresh, empty location for each test.
 */
export function describeSessionStore(name: string, makeLocation: () => Promise<StoreLocation>): void {
  describe(`SessionStore conformance: ${name}`, () => {
    let location: StoreLocation;
    let store: SessionStore;
    const opened: SessionStore[] = [];

    const reopen = async (): Promise<SessionStore> => {
      await store.close();
      store = await location.open();
      opened.push(store);
      return store;
    };

    beforeEach(async () => {
      location = await makeLocation();
      store = await location.open();
      opened.push(store);
    });

    afterEach(async () => {
      for (const each of opened.splice(0)) await each.close();
      await location.cleanup();
    });

    it("creates sessions with their metadata and finds them by id", async () => {
      const info = await store.createSession({ id: "s-1", title: "First", metadata: { cwd: "/repo", n: 1 } });
      expect(info).toMatchObject({
        id: "s-1",
        title: "First",
        lastSeq: -1,
        metadata: { cwd: "/repo", n: 1 },
      });
      expect(info.createdAt).toBeGreaterThan(0);
      expect(await store.get("s-1")).toMatchObject({ id: "s-1", title: "First", lastSeq: -1 });
      expect(await store.get("missing")).toBeUndefined();
      const generated = await store.createSession();
      expect(generated.id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(generated.id).not.toBe("s-1");
    });

    it("refuses a taken id and a malformed one", async () => {
      await store.createSession({ id: "taken" });
      expect(await codeOf(store.createSession({ id: "taken" }))).toBe("store_conflict");
      expect(await codeOf(store.createSession({ id: "../escape" }))).toBe("invalid_argument");
      expect(await codeOf(store.createSession({ id: "" }))).toBe("invalid_argument");
      expect(await codeOf(store.createSession({ id: "x".repeat(129) }))).toBe("invalid_argument");
    });

    it("numbers appends gaplessly across batches and reads them back in order", async () => {
      await store.createSession({ id: "s" });
      const events = sampleRunEvents();
      expect(await store.append("s", events.slice(0, 4))).toEqual({ firstSeq: 0, lastSeq: 3 });
      expect(await store.append("s", events.slice(4, 5))).toEqual({ firstSeq: 4, lastSeq: 4 });
      expect(await store.append("s", [])).toEqual({ firstSeq: 5, lastSeq: 4 });
      expect(await store.append("s", events.slice(5))).toEqual({ firstSeq: 5, lastSeq: 8 });
      const stored = await readAll(store, "s");
      expect(stored.map((s) => s.sessionSeq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
      expect(stored.map((s) => s.event)).toEqual(events);
      expect((await store.get("s"))?.lastSeq).toBe(8);
    });

    it("reads from a sequence number", async () => {
      await store.createSession({ id: "s" });
      await store.append("s", sampleRunEvents());
      const tail = await readAll(store, "s", 6);
      expect(tail.map((s) => s.sessionSeq)).toEqual([6, 7, 8]);
      expect(tail[0]?.event.type).toBe("model_request");
      expect(await readAll(store, "s", 9)).toEqual([]);
      expect(await readAll(store, "s", 1000)).toEqual([]);
    });

    it("fails clearly on unknown sessions", async () => {
      expect(await codeOf(store.append("nope", [numberedEvent(0)]))).toBe("not_found");
      expect(await codeOf(readAll(store, "nope"))).toBe("not_found");
      expect(await codeOf(store.fork("nope", 0))).toBe("not_found");
      expect(await codeOf(store.search("anything", { sessionId: "nope" }))).toBe("not_found");
    });

    it("serializes concurrent appends to one session without gaps or interleaving", async () => {
      await store.createSession({ id: "s" });
      const batches = Array.from({ length: 20 }, (_, b) =>
        [0, 1, 2].map((i) => numberedEvent(b * 3 + i, `run-${b}`)),
      );
      const results = await Promise.all(batches.map((batch) => store.append("s", batch)));
      const stored = await readAll(store, "s");
      expect(stored.map((s) => s.sessionSeq)).toEqual(Array.from({ length: 60 }, (_, i) => i));
      for (const [b, { firstSeq, lastSeq }] of results.entries()) {
        expect(lastSeq - firstSeq).toBe(2);
        expect(stored.slice(firstSeq, lastSeq + 1).map((s) => s.event)).toEqual(batches[b]);
      }
    });

    it("keeps everything across close and reopen, and continues the numbering", async () => {
      await store.createSession({ id: "s", title: "kept" });
      await store.append("s", sampleRunEvents());
      const again = await reopen();
      expect(await again.get("s")).toMatchObject({ id: "s", title: "kept", lastSeq: 8 });
      expect((await readAll(again, "s")).map((s) => s.event)).toEqual(sampleRunEvents());
      expect(await again.append("s", [numberedEvent(9)])).toEqual({ firstSeq: 9, lastSeq: 9 });
    });

    it("lists sessions most recently updated first, with a limit", async () => {
      await store.createSession({ id: "old", title: "Old" });
      await store.createSession({ id: "mid", metadata: { tag: "m" } });
      await store.createSession({ id: "new" });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.append("old", [numberedEvent(0)]);
      const all = await store.list();
      expect(all.map((s) => s.id).sort()).toEqual(["mid", "new", "old"]);
      expect(all[0]).toMatchObject({ id: "old", title: "Old", lastSeq: 0 });
      expect(all.find((s) => s.id === "mid")?.metadata).toEqual({ tag: "m" });
      expect(await store.list({ limit: 2 })).toHaveLength(2);
    });

    it("forks at a sequence: shared history, separate futures, parent untouched", async () => {
      await store.createSession({ id: "main" });
      const events = sampleRunEvents();
      await store.append("main", events);
      const branch = await store.fork("main", 3, { id: "branch", title: "try another way" });
      expect(branch).toMatchObject({ id: "branch", lastSeq: 3, parent: { sessionId: "main", seq: 3 } });
      expect(await store.append("branch", [numberedEvent(100)])).toEqual({ firstSeq: 4, lastSeq: 4 });
      await store.append("main", [numberedEvent(200)]);
      const onBranch = await readAll(store, "branch");
      expect(onBranch.map((s) => s.sessionSeq)).toEqual([0, 1, 2, 3, 4]);
      expect(onBranch.map((s) => s.event)).toEqual([...events.slice(0, 4), numberedEvent(100)]);
      expect((await readAll(store, "branch", 2)).map((s) => s.sessionSeq)).toEqual([2, 3, 4]);
      const onMain = await readAll(store, "main");
      expect(onMain.map((s) => s.event)).toEqual([...events, numberedEvent(200)]);
      const twig = await store.fork("branch", 4, { id: "twig" });
      expect(twig.lastSeq).toBe(4);
      expect((await readAll(store, "twig")).map((s) => s.event)).toEqual(onBranch.map((s) => s.event));
      const empty = await store.fork("main", -1, { id: "fresh" });
      expect(empty.lastSeq).toBe(-1);
      expect(await readAll(store, "fresh")).toEqual([]);
      expect(await codeOf(store.fork("main", 10))).toBe("invalid_argument");
      expect(await codeOf(store.fork("main", -2))).toBe("invalid_argument");
      const again = await reopen();
      expect((await readAll(again, "twig")).map((s) => s.event)).toEqual(onBranch.map((s) => s.event));
      expect(await again.append("twig", [numberedEvent(300)])).toEqual({ firstSeq: 5, lastSeq: 5 });
    });

    it("round-trips large tool outputs exactly, however often they repeat", async () => {
      await store.createSession({ id: "s" });
      const big = `${"line of build output\n".repeat(12_000)}BUILD OK`;
      const first = sampleRunEvents({ runId: "a", toolOutput: big });
      const second = sampleRunEvents({ runId: "b", toolOutput: big });
      const tricky: RunEvent = {
        runId: "c",
        seq: 0,
        time: 1,
        type: "tool_progress",
        toolCallId: "x",
        toolName: "bash",
        data: { $blob: "not a reference", big },
      };
      await store.append("s", first);
      await store.append("s", [...second, tricky]);
      const again = await reopen();
      expect((await readAll(again, "s")).map((s) => s.event)).toEqual([...first, ...second, tricky]);
    });

    it("searches text across sessions, best match first", async () => {
      await store.createSession({ id: "a" });
      await store.createSession({ id: "b" });
      await store.append("a", sampleRunEvents({ prompt: "Fix the flaky login test" }));
      await store.append(
        "b",
        sampleRunEvents({
          runId: "r2",
          prompt: "Why is login slow?",
          reply: "Login login login: the login handler hashes twice.",
        }),
      );
      const hits = await store.search("login");
      expect(hits.length).toBeGreaterThanOrEqual(3);
      expect(hits[0]).toMatchObject({ sessionId: "b", sessionSeq: 3, eventType: "model_response" });
      for (let i = 1; i < hits.length; i++) {
        expect((hits[i - 1] as { score: number }).score).toBeGreaterThanOrEqual(
          (hits[i] as { score: number }).score,
        );
      }
      expect(hits[0]?.snippet.toLowerCase()).toContain("login");
      expect(await store.search("LOGIN flaky")).toEqual([
        expect.objectContaining({ sessionId: "a", sessionSeq: 0 }),
      ]);
      expect((await store.search("flak")).map((h) => h.sessionId)).toEqual(["a"]);
      expect(await store.search("login", { limit: 1 })).toHaveLength(1);
      expect((await store.search("login", { sessionId: "a" })).every((h) => h.sessionId === "a")).toBe(true);
      // Tool output and tool call arguments are searchable too.
      expect((await store.search("deploy.sh")).map((h) => h.eventType)).toContain("tool_call_completed");
      expect((await store.search("notes.md")).map((h) => h.eventType)).toContain("model_response");
      expect(await store.search("nothing-like-this-anywhere")).toEqual([]);
      expect(await store.search("")).toEqual([]);
      for (const odd of ['"unbalanced', "login AND (", "NEAR(x y)", "*", "col:login", "-login", "^login"]) {
        await expect(store.search(odd)).resolves.toBeInstanceOf(Array);
      }
    });

    it("finds text inside large tool outputs", async () => {
      await store.createSession({ id: "s" });
      const big = `${"filler words here ".repeat(2_000)}the needle-in-haystack marker ${"tail ".repeat(100)}`;
      await store.append("s", sampleRunEvents({ toolOutput: big }));
      const hits = await store.search("haystack");
      expect(hits.map((h) => [h.sessionSeq, h.eventType])).toEqual([[5, "tool_call_completed"]]);
    });

    it("records a harness run through sessionSink, before tools run, and resumes it", async () => {
      await store.createSession({ id: "run" });
      const seenBeforeExecute: string[] = [];
      const probe = defineTool({
        name: "probe",
        description: "checks the call was recorded before it ran",
        inputSchema: z.object({ note: z.string() }),
        execute: async ({ note }, ctx) => {
          const recorded = await readAll(store, "run");
          const call = recorded.find(
            (s) => s.event.type === "tool_call_requested" && s.event.toolCall.id === ctx.toolCallId,
          );
          if (call) seenBeforeExecute.push(note);
          return { content: `noted ${note}` };
        },
      });
      const model = new ScriptedModel([
        { text: "probing", toolCalls: [{ name: "probe", arguments: { note: "one" } }], chunkSize: 2 },
        { text: "done" },
        { text: "resumed fine" },
      ]);
      const harness = new Harness({ model, tools: [probe] });
      const sink = sessionSink(store, "run");
      const first = await harness.run({ prompt: "probe once", sink, sessionId: "run" });
      expect(first.error).toBeUndefined();
      expect(first.stopReason).toBe("completed");
      expect(seenBeforeExecute).toEqual(["one"]);
      const again = await reopen();
      const history = await sessionTranscript(again, "run");
      expect(history).toEqual(first.messages);
      const second = await harness.run({ prompt: "and again", history, sink: sessionSink(again, "run") });
      expect(second.stopReason).toBe("completed");
      expect(await sessionTranscript(again, "run")).toEqual(second.messages);
      const seqs = (await readAll(again, "run")).map((s) => s.sessionSeq);
      expect(seqs).toEqual(seqs.map((_, i) => i));
    });

    it("closes a tool call left without a result when the transcript is rebuilt", async () => {
      await store.createSession({ id: "s" });
      await store.append("s", sampleRunEvents().slice(0, 5));
      const transcript = await sessionTranscript(store, "s");
      expect(transcript.at(-1)).toMatchObject({
        role: "tool",
        toolCallId: "call-run-1",
        errorKind: "Cancelled",
      });
    });

    it("serializes or refuses a second writer on the same session", async () => {
      await store.createSession({ id: "s" });
      await store.append("s", [numberedEvent(0)]);
      const other = await location.open();
      opened.push(other);
      let refused = false;
      try {
        await other.append("s", [numberedEvent(1)]);
      } catch (error) {
        expect(error).toBeInstanceOf(BridleError);
        expect((error as BridleError).code).toBe("store_conflict");
        refused = true;
      }
      await store.append("s", [numberedEvent(2)]);
      const seqs = (await readAll(store, "s")).map((s) => s.sessionSeq);
      expect(seqs).toEqual(refused ? [0, 1] : [0, 1, 2]);
    });
  });
}
