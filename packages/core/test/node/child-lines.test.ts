import { expect, it } from "vitest";
import { lineSplitter, readChildLines } from "../../src/node/index.js";

// A child that writes its lines in pieces that split lines mid-way (and a long line across many writes),
// pausing between writes so each arrives as its own chunk.
const SPLIT_WRITER = `
const pieces = ["al", "pha\\nbe", "ta\\n", "x".repeat(100000), "y".repeat(100000), "\\ngam", "ma\\n\\nlast-without-newline"];
let i = 0;
const next = () => { if (i < pieces.length) process.stdout.write(pieces[i++], () => setTimeout(next, 20)); };
next();
`;

it("hands over whole lines however the pipe splits them, the last unterminated one included", async () => {
  const lines: string[] = [];
  const result = await readChildLines(process.execPath, ["-e", SPLIT_WRITER], {
    onLine: (line) => {
      lines.push(line);
      return "more";
    },
  });
  expect(lines).toEqual([
    "alpha",
    "beta",
    "x".repeat(100000) + "y".repeat(100000),
    "gamma",
    "",
    "last-without-newline",
  ]);
  expect(result).toMatchObject({ stopped: false, timedOut: false, exitCode: 0 });
});

it("stop kills the child and no more lines arrive", async () => {
  const lines: string[] = [];
  const result = await readChildLines(process.execPath, ["-e", "for (let i = 0; ; i++) console.log(i)"], {
    onLine: (line) => {
      lines.push(line);
      return lines.length === 3 ? "stop" : "more";
    },
  });
  expect(lines).toEqual(["0", "1", "2"]);
  expect(result.stopped).toBe(true);
  expect(result.exitCode).toBeNull();
});

it("a timeout kills a silent child; stderr is kept to its bound; abort rejects with the reason", async () => {
  const timed = await readChildLines(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
    timeoutMs: 300,
    onLine: () => "more",
  });
  expect(timed.timedOut).toBe(true);
  expect(timed.exitCode).toBeNull();
  // A child that writes much more stderr than is kept, then exits: no clock decides what was written.
  const noisy = await readChildLines(process.execPath, ["-e", "process.stderr.write('e'.repeat(100000))"], {
    maxStderr: 50,
    onLine: () => "more",
  });
  expect(noisy).toMatchObject({ timedOut: false, exitCode: 0, stderr: "e".repeat(50) });
  const controller = new AbortController();
  const running = readChildLines(process.execPath, ["-e", "console.log('up'); setInterval(() => {}, 1000)"], {
    signal: controller.signal,
    onLine: () => {
      controller.abort(new Error("user pressed stop"));
      return "more";
    },
  });
  await expect(running).rejects.toThrow("user pressed stop");
});

it("a program that does not exist rejects with ENOENT", async () => {
  await expect(readChildLines("/nonexistent/program", [], { onLine: () => "more" })).rejects.toMatchObject({
    code: "ENOENT",
  });
});

it("the splitter alone: lines across chunk edges, stop ends delivery, end hands over the rest", () => {
  const seen: string[] = [];
  const lines = lineSplitter((line) => {
    seen.push(line);
    return line === "stop-here" ? "stop" : "more";
  });
  for (const chunk of ["a", "b\nc", "d\n", "\n", "tail"]) lines.push(chunk);
  lines.end();
  expect(seen).toEqual(["ab", "cd", "", "tail"]);
  const stopping = lineSplitter((line) => {
    seen.push(line);
    return line === "stop-here" ? "stop" : "more";
  });
  seen.length = 0;
  stopping.push("one\nstop-here\ntwo\n");
  stopping.push("three\n");
  stopping.end();
  expect(seen).toEqual(["one", "stop-here"]);
  expect(stopping.stopped).toBe(true);
});
