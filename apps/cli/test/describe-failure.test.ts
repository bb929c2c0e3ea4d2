import { describe, expect, it } from "vitest";
import { CliError, describeFailure, nodeIsRecentEnough } from "../src/cli-error.js";

// What main prints for each kind of failure; the process-level tests in bad-input.test.ts cover the ones
// a user can provoke from the command line, these the ones that need a particular Node or a bug.
describe("describeFailure", () => {
  it("names the Node a missing built-in needs, in one line", () => {
    const error = Object.assign(new Error("No such built-in module: node:sqlite"), {
      code: "ERR_UNKNOWN_BUILTIN_MODULE",
    });
    const { line, exitCode } = describeFailure(error, {});
    expect(exitCode).toBe(1);
    expect(line).toMatch(
      /^bridle: Node \S+ lacks a feature bridle uses \(No such built-in module: node:sqlite\)/,
    );
    expect(line).toContain("use Node 22.15 or newer");
    expect(line).not.toContain("\n");
  });

  it("keeps an unexpected error to one line unless BRIDLE_DEBUG asks for the stack", () => {
    const error = new TypeError("cannot read properties of undefined\n(reading 'x')");
    const quiet = describeFailure(error, {});
    expect(quiet.exitCode).toBe(70);
    expect(quiet.line).toBe(
      "bridle: unexpected error: cannot read properties of undefined (reading 'x') (BRIDLE_DEBUG=1 prints the stack)",
    );
    const loud = describeFailure(error, { BRIDLE_DEBUG: "1" });
    expect(loud.line).toContain("at ");
  });

  it("prints a CliError's message with its exit code, and a non-Error as text", () => {
    expect(describeFailure(new CliError("bad\nthing", 2), {})).toEqual({
      line: "bridle: bad thing",
      exitCode: 2,
    });
    expect(describeFailure("just a string", {}).line).toBe(
      "bridle: unexpected error: just a string (BRIDLE_DEBUG=1 prints the stack)",
    );
  });
});

describe("the Node the CLI needs", () => {
  it("is 22.15 or newer, as engines says", async () => {
    expect(["22.15.0", "22.20.1", "23.0.0", "24.11.0"].map((v) => nodeIsRecentEnough(v))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["20.19.0", "22.13.1", "22.14.9", "18.0.0"].map((v) => nodeIsRecentEnough(v))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
