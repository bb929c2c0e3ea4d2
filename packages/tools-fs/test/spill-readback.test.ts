import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_SPILL } from "@bridle/core";
import { describe, expect, it } from "vitest";
import type { ReadFileDetails } from "../src/index.js";
import { fixture, text } from "./helpers.js";

// A spilled tool result is a file the model is told to read in parts: every part must come back whole.
describe("reading a spilled result back", () => {
  it("the default page of a file of full-width lines stays under the spill limit", async () => {
    const fx = await fixture();
    const line = "w".repeat(1_999);
    await fx.files({ "spill.txt": `${Array.from({ length: 5_000 }, () => line).join("\n")}\n` });
    let offset = 1;
    let pages = 0;
    for (;;) {
      const page = await fx.call<ReadFileDetails>(fx.kit.readFile, { path: "spill.txt", offset });
      expect(text(page).length).toBeLessThan(DEFAULT_SPILL.maxChars);
      pages++;
      if (page.details?.nextOffset === undefined) break;
      offset = page.details.nextOffset;
    }
    expect(offset).toBeGreaterThan(4_975);
    expect(pages).toBeGreaterThan(1);
  });

  it("one long line is read in parts by column, every character once", async () => {
    const fx = await fixture();
    // 180,000 characters on line 2, each position recognisable.
    const long = Array.from({ length: 18_000 }, (_, i) => String(i).padStart(9, "0")).join(",");
    await writeFile(join(fx.dir, "one.json"), `{\n${long}\n}\n`);
    const first = text(await fx.call(fx.kit.readFile, { path: "one.json" }));
    expect(first).toContain("offset=2 column=2001 reads on");
    let column = 1;
    let read = "";
    for (let calls = 0; calls < 20; calls++) {
      const part = text(await fx.call(fx.kit.readFile, { path: "one.json", offset: 2, column }));
      expect(part.length).toBeLessThan(DEFAULT_SPILL.maxChars);
      const [body, footer] = part.split("\n\n");
      read += (body as string).replace(/^2\t/, "");
      const next = /column=(\d+) to continue/.exec(footer as string);
      if (!next) {
        expect(footer).toContain("the end of the line");
        break;
      }
      column = Number(next[1]);
    }
    expect(read).toBe(long);
  });

  it("a column in a large streamed file, and past the end of the line", async () => {
    const fx = await fixture({ wholeReadBytes: 1024 });
    await writeFile(join(fx.dir, "big.txt"), `${"a".repeat(5_000)}b${"c".repeat(5_000)}\nshort\n`);
    const part = text(await fx.call(fx.kit.readFile, { path: "big.txt", offset: 1, column: 5_001 }));
    expect(part.startsWith("1\tb")).toBe(true);
    expect(part).toContain("characters 5001-10001 of 10,001: the end of the line");
    const past = await fx.fail(fx.kit.readFile, { path: "big.txt", offset: 2, column: 7 });
    expect(past.kind).toBe("InvalidInput");
    expect(past.message).toMatch(/column 7 is past the end of line 2 .* 5 characters/);
  });
});
