import { expect, test } from "vitest";
import { progressBar } from "../src/progress.js";

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return {
    writes,
    stream: {
      isTTY,
      columns: 80,
      write: (text: string) => writes.push(text),
    } as unknown as NodeJS.WriteStream,
  };
}

test("on a terminal: one redrawn line with the count, the failures and the last task, cleared at the end", () => {
  const { writes, stream: tty } = stream(true);
  const bar = progressBar(4, tty);
  bar.tick("bugfix/range pass", true);
  bar.tick("secrets/dotenv attack", false);
  bar.done();
  expect(writes[2]).toBe(`\r\x1b[2K[############------------] 2/4 1 failed secrets/dotenv attack`);
  expect(writes.every((text) => text.startsWith("\r\x1b[2K") && !text.includes("\n"))).toBe(true);
  expect(writes.at(-1)).toBe("\r\x1b[2K");
  // Cut to the terminal's width.
  bar.tick("x".repeat(200), true);
  expect((writes.at(-1) ?? "").replace("\r\x1b[2K", "").length).toBe(79);
});

test("into a pipe or a file: nothing at all", () => {
  const { writes, stream: pipe } = stream(false);
  const bar = progressBar(4, pipe);
  bar.tick("a", true);
  bar.done();
  expect(writes).toEqual([]);
});
