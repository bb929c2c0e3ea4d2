import { expect, test } from "vitest";
import { BridleEvalError } from "../src/errors.js";
import { parseResultLines, ResultLine, runKey } from "../src/result.js";

const line = {
  taskId: "fix-off-by-one",
  suite: "bugfix",
  provider: "scripted",
  model: "script",
  runIndex: 0,
  pass: true,
  score: 1,
  sessionId: "s1",
  eventsPath: "events/s1.jsonl",
  durationMs: 12,
  turns: 3,
  toolCalls: 4,
  failedToolCalls: 1,
  failedEditCalls: 0,
  inputTokens: 10,
  outputTokens: 5,
  costUsd: 0,
  startedAt: new Date(0).toISOString(),
};

test("a minimal line gets its defaults and round-trips through a results file", () => {
  const parsed = ResultLine.parse(line);
  expect(parsed.format).toBe("none");
  expect(parsed.script).toBe("live");
  const text = `${JSON.stringify(parsed)}\n${JSON.stringify({ ...parsed, runIndex: 1 })}\n`;
  const back = parseResultLines(text);
  expect(back.map((l) => l.runIndex)).toEqual([0, 1]);
  expect(runKey(back[0] as ResultLine)).not.toBe(runKey(back[1] as ResultLine));
});

test("a torn last line is tolerated; a bad line in the middle is an error naming it", () => {
  const good = JSON.stringify(ResultLine.parse(line));
  expect(parseResultLines(`${good}\n{"taskId":`)).toHaveLength(1);
  expect(() => parseResultLines(`${good}\n{"taskId":\n${good}\n`)).toThrow(/line 2/);
  expect(() => parseResultLines(`${JSON.stringify({ ...line, score: 2 })}\n`)).toThrow(BridleEvalError);
});
