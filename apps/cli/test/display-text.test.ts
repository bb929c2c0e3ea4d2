// The one function between text the CLI did not write and the terminal: what it escapes, what it keeps,
// and where it cuts.
import { describe, expect, it } from "vitest";
import { displayText, oneLine, terminalJson, visible } from "../src/terminal/display-text.js";

describe("visible", () => {
  it("escapes C0 but newline and tab, DEL, C1 and format characters, and keeps everything else", () => {
    expect(visible("a\x1b[2Jb\tc\nd\re\x7f\u009b\u202e\u200b\u{e0041}é✓")).toBe(
      "a\\x1b[2Jb\tc\nd\\x0de\\x7f\\u009b\\u202e\\u200b\\u{e0041}é✓",
    );
  });

  it("shows a sequence split across pieces exactly as the whole one", () => {
    const whole = "x\x1b]52;c;aGk=\x07\u009b2Jy";
    const pieces = [...whole].map(visible).join("");
    expect(pieces).toBe(visible(whole));
    for (const raw of ["\x1b", "\x07", "\u009b"]) expect(pieces).not.toContain(raw);
  });
});

describe("displayText and oneLine", () => {
  it("cut after max characters, never inside an escape or a surrogate pair", () => {
    expect(displayText(`${"x".repeat(8)}\x1b`, 10)).toBe(`${"x".repeat(8)}…`);
    expect(displayText(`${"x".repeat(9)}\u009b`, 12)).toBe(`${"x".repeat(9)}…`);
    expect(displayText(`${"x".repeat(9)}😀😀`, 10)).toBe(`${"x".repeat(9)}…`);
    expect(displayText("short", 10)).toBe("short");
    expect(displayText("a\nb")).toBe("a\\x0ab");
  });

  it("oneLine joins lines and spaces, but shows a carriage return that ends no line", () => {
    expect(oneLine("  one\r\ntwo \n\t three\rfour  ")).toBe("one two three\\x0dfour");
    expect(oneLine("a\u2028b\ufeffc")).toBe("a\\u2028b\\ufeffc");
  });
});

describe("terminalJson", () => {
  it("leaves no DEL, C1 or format character raw, and parses back to the same value", () => {
    const value = { text: "\x1b[2J\x7f\u009b\u202e\u{e0041}\u2028 ok", n: 1 };
    const json = terminalJson(value);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(json).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e\u2028]|\u{e0041}/u);
    expect(JSON.parse(json)).toEqual(value);
  });
});
