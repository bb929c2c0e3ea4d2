import { defineTool, Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ATTR, capJson, capJsonText, capMessages, RunTracer, truncateText } from "../src/index.js";
import { echo, memoryTracing, one } from "./fixtures.js";

const big = defineTool({
  name: "dump",
  description: "Returns a lot of text",
  inputSchema: z.object({ size: z.number() }),
  execute: async ({ size }) => ({ content: "x".repeat(size) }),
});

function script() {
  return new ScriptedModel([
    {
      text: "calling",
      toolCalls: [
        { name: "echo", arguments: { text: "secret prompt data" }, id: "e" },
        { name: "dump", arguments: { size: 50_000 }, id: "d" },
      ],
    },
    { text: "the answer" },
  ]);
}

describe("content capture", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("records prompts, outputs, arguments and results when asked, within the size cap", async () => {
    const { tracer, spans } = memoryTracing({ captureContent: { maxLength: 300 } });
    expect(tracer.capturesContent).toBe(true);
    const harness = new Harness({ model: script(), tools: [echo, big] });
    await harness.run({ prompt: "please use the tools", sink: tracer });
    const all = spans();
    for (const span of all) {
      for (const value of Object.values(span.attributes)) {
        if (typeof value === "string") expect(value.length).toBeLessThanOrEqual(300);
      }
    }
    const agent = one(all, "invoke_agent");
    expect(JSON.parse(String(agent.attributes[ATTR.inputMessages]))).toEqual([
      { role: "user", parts: [{ type: "text", content: "please use the tools" }] },
    ]);
    expect(JSON.parse(String(agent.attributes[ATTR.outputMessages]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "the answer" }], finish_reason: "stop" },
    ]);

    const echoSpan = one(all, "execute_tool echo");
    expect(JSON.parse(String(echoSpan.attributes[ATTR.toolCallArguments]))).toEqual({
      text: "secret prompt data",
    });
    expect(echoSpan.attributes[ATTR.toolCallResult]).toBe("secret prompt data");
    expect(echoSpan.attributes[ATTR.contentTruncated]).toBeUndefined();

    const dump = one(all, "execute_tool dump");
    const result = String(dump.attributes[ATTR.toolCallResult]);
    expect(result.length).toBeLessThanOrEqual(300);
    expect(result).toMatch(/^x+…\[\d+ more chars\]$/);
    expect(dump.attributes[ATTR.contentTruncated]).toBe(true);

    const chats = all
      .filter((span) => span.name.startsWith("chat"))
      .sort((a, b) => Number(a.attributes[ATTR.request]) - Number(b.attributes[ATTR.request]));
    const firstOut = JSON.parse(String(chats[0]?.attributes[ATTR.outputMessages]));
    expect(firstOut[0].finish_reason).toBe("tool_call");
    expect(firstOut[0].parts[1]).toEqual({
      type: "tool_call",
      id: "e",
      name: "echo",
      arguments: { text: "secret prompt data" },
    });
    // The second request's input holds the conversation so far, newest kept, still valid JSON.
    const secondIn = JSON.parse(String(chats[1]?.attributes[ATTR.inputMessages])) as { role: string }[];
    expect(secondIn.at(-1)?.role).toBe("tool");
    expect(chats[1]?.attributes[ATTR.contentTruncated]).toBe(true);
  });

  it("records a structured answer given through final_result as the run's output", async () => {
    const { tracer, spans } = memoryTracing({ captureContent: true });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "final_result", arguments: { verdict: "ship it" } }] },
    ]);
    const harness = new Harness({
      model,
      output: { mode: "tool", schema: z.object({ verdict: z.string() }) },
    });
    const result = await harness.run({ prompt: "decide", sink: tracer });
    expect(result.stopReason).toBe("completed");
    const output = JSON.parse(String(one(spans(), "invoke_agent").attributes[ATTR.outputMessages]));
    expect(JSON.parse(output[0].parts[0].content)).toEqual({ verdict: "ship it" });
  });

  it("records no content by default", async () => {
    vi.stubEnv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "");
    const { tracer, spans } = memoryTracing();
    expect(tracer.capturesContent).toBe(false);
    await new Harness({ model: script(), tools: [echo, big] }).run({ prompt: "hi", sink: tracer });
    const text = JSON.stringify(spans().map((span) => span.attributes));
    expect(text).not.toContain("secret prompt data");
    expect(text).not.toContain("the answer");
  });

  it("follows the convention's opt-in variable when the option is unset", () => {
    vi.stubEnv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true");
    expect(new RunTracer().capturesContent).toBe(true);
    expect(new RunTracer({ captureContent: false }).capturesContent).toBe(false);
  });
});

describe("size caps", () => {
  it("truncateText says how much it cut and stays within the cap", () => {
    expect(truncateText("short", 10)).toBe("short");
    const cut = truncateText("a".repeat(1000), 50);
    expect(cut.length).toBeLessThanOrEqual(50);
    expect(cut).toMatch(/…\[\d+ more chars\]$/);
    const kept = cut.indexOf("…");
    expect(cut).toContain(`[${1000 - kept} more chars]`);
  });

  it("capJson cuts strings and keeps the JSON valid", () => {
    const value = { path: "src/a.ts", content: "y".repeat(5000), lines: [1, 2, 3] };
    const { text, truncated } = capJson(value, 200);
    expect(truncated).toBe(true);
    expect(text.length).toBeLessThanOrEqual(200);
    const parsed = JSON.parse(text);
    expect(parsed.path).toBe("src/a.ts");
    expect(parsed.lines).toEqual([1, 2, 3]);
    expect(capJson({ a: 1 }, 200)).toEqual({ text: '{"a":1}', truncated: false });
  });

  it("capJson bounds values that are not strings", () => {
    const { text, truncated } = capJson(
      Array.from({ length: 5000 }, (_, i) => i),
      100,
    );
    expect(truncated).toBe(true);
    expect(text.length).toBeLessThanOrEqual(100);
  });

  it("capJsonText handles arguments that are not JSON", () => {
    const raw = `{"broken": ${"z".repeat(500)}`;
    const { text, truncated } = capJsonText(raw, 100);
    expect(truncated).toBe(true);
    expect(text.length).toBeLessThanOrEqual(100);
    expect(capJsonText('{"a":1}', 100).text).toBe('{"a":1}');
  });

  it("capMessages keeps the newest messages whole", () => {
    const messages = Array.from({ length: 20 }, (_, i) => ({
      role: "user",
      parts: [{ type: "text", content: `m${i}-${"p".repeat(40)}` }],
    }));
    const { text, truncated } = capMessages(messages, 400);
    expect(truncated).toBe(true);
    expect(text.length).toBeLessThanOrEqual(400);
    const kept = JSON.parse(text) as typeof messages;
    expect(kept.at(-1)).toEqual(messages.at(-1));
    expect(kept.length).toBeGreaterThan(1);
    expect(kept.length).toBeLessThan(20);
    const single = capMessages([{ role: "user", parts: [{ type: "text", content: "q".repeat(2000) }] }], 150);
    expect(single.text.length).toBeLessThanOrEqual(150);
    expect(JSON.parse(single.text)[0].role).toBe("user");
    expect(capMessages([], 10)).toEqual({ text: "[]", truncated: false });
  });
});
