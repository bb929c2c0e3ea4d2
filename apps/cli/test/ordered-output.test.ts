import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { OrderedOutput } from "../src/terminal/ordered-output.js";

function recorder() {
  const writes: [string, string][] = [];
  const stream = (name: string) => ({ write: (text: string) => writes.push([name, text]) });
  return { writes, out: stream("out"), err: stream("err") };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("OrderedOutput", () => {
  it("writes a turn's lines once per change of stream, in order, at the end of the turn", async () => {
    const { writes, out, err } = recorder();
    const output = new OrderedOutput(out, err, { coalesce: true });
    output.stderr.write("[turn 1]\n");
    output.stderr.write("→ bash ls\n");
    output.stdout.write("text");
    output.stdout.write(" more");
    output.stderr.write("✓ bash\n");
    output.stderr.write("");
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual([
      ["err", "[turn 1]\n→ bash ls\n"],
      ["out", "text more"],
      ["err", "✓ bash\n"],
    ]);
    output.stderr.write("next\n");
    output.close();
    expect(writes.at(-1)).toEqual(["err", "next\n"]);
    await turn();
    expect(writes).toHaveLength(4);
  });

  it("writes each line at once when it does not coalesce", () => {
    const { writes, out, err } = recorder();
    const output = new OrderedOutput(out, err, { coalesce: false });
    output.stderr.write("a\n");
    output.stdout.write("b");
    expect(writes).toEqual([
      ["err", "a\n"],
      ["out", "b"],
    ]);
    output.close();
  });

  it("writes what is pending when the process exits before the turn ends", async () => {
    const module = new URL("../src/terminal/ordered-output.ts", import.meta.url).pathname;
    const script = `
      const { OrderedOutput } = await import(${JSON.stringify(module)});
      const output = new OrderedOutput(process.stdout, process.stderr, { coalesce: true });
      output.stdout.write("answer\\n");
      output.stderr.write("line\\n");
      process.exit(3);
    `;
    const run = promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
    await expect(run).rejects.toMatchObject({ code: 3, stdout: "answer\n", stderr: "line\n" });
  });
});
