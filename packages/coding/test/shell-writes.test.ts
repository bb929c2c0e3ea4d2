import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineTool, type RunEvent } from "@bridle/core";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { FACT } from "../src/index.js";
import { type Agent, call, codingAgent, tempRepo } from "./repo.js";

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

interface Changes {
  readonly files: readonly { readonly path: string; readonly change: string }[];
}

/** The changes facts recorded while each tool call ran (its after_tool_call hook), call by call, and after. */
function changesPerCall(events: readonly RunEvent[]): { perCall: Changes[][]; afterCalls: Changes[] } {
  const perCall: Changes[][] = [];
  let current: Changes[] = [];
  let inCalls = false;
  for (const event of events) {
    if (event.type === "tool_call_requested") {
      if (inCalls) perCall.push(current);
      current = [];
      inCalls = true;
    } else if (event.type === "fact" && event.kind === FACT.changes) current.push(event.data as Changes);
    else if (event.type === "model_request" && inCalls) {
      perCall.push(current);
      current = [];
      inCalls = false;
    }
  }
  if (inCalls) perCall.push(current);
  return { perCall, afterCalls: current };
}

const paths = (changes: readonly Changes[]) => changes.flatMap((c) => c.files.map((f) => f.path));

async function agentFor(script: Parameters<typeof codingAgent>[1], files: Record<string, string>) {
  const repo = await tempRepo(files);
  cleanups.push(repo.cleanup);
  // A tool the overlay is told never writes, though it does: it changes the tree behind the overlay's back.
  const sneak = defineTool({
    name: "sneak",
    description: "writes a file the overlay is not told about",
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      await writeFile(join(repo.dir, path), "sneaked\n");
      return { content: "ok" };
    },
  });
  const agent: Agent = await codingAgent(repo.dir, script, {
    extraTools: [sneak],
    readOnlyTools: ["sneak"],
  });
  cleanups.push(() => agent.close());
  return { agent, dir: repo.dir };
}

const FILES = {
  "a.txt": "alpha\nbeta\n",
  "b.txt": "gamma\n",
  "gone.txt": "bye\n",
  "gone2.txt": "bye\n",
  "p.diff": "",
};

// Each command writes the file named beside it; the overlay must report it right after that call.
const WRITERS: readonly (readonly [string, string])[] = [
  ["echo one > w1.txt", "w1.txt"],
  ["echo more >> a.txt", "a.txt"],
  ["echo hi | tee w2.txt", "w2.txt"],
  ["cp b.txt w3.txt", "w3.txt"],
  ["mv gone.txt w4.txt", "w4.txt"],
  ["rm gone2.txt", "gone2.txt"],
  ["sed -i s/gamma/GAMMA/ b.txt", "b.txt"],
  ["cat <<< here > w5.txt", "w5.txt"],
  ["(echo sub > w6.txt)", "w6.txt"],
  ["{ echo grouped; } > w7.txt", "w7.txt"],
  ["echo bg > w8.txt & wait", "w8.txt"],
  ["bash -c 'echo script > w9.txt'", "w9.txt"],
  ["echo w10.txt | xargs touch", "w10.txt"],
  ["find . -maxdepth 1 -name b.txt -exec cp {} w11.txt \\;", "w11.txt"],
  ["printf 'echo s > w14.txt\\n' > s.sh && bash s.sh", "w14.txt"],
  ["git checkout -- a.txt", "a.txt"],
  ["echo $(echo sub > w12.txt)", "w12.txt"],
  ["printf 'x\\n' > w13.txt 2>/dev/null", "w13.txt"],
];

describe("the overlay after shell commands", () => {
  it("reports each writing command's change right after it", async () => {
    const { agent } = await agentFor(
      [...WRITERS.map(([command]) => call("bash", { command })), { text: "done" }],
      FILES,
    );
    const { events, result } = await agent.run("write files");
    expect(result.stopReason).toBe("completed");
    const { perCall } = changesPerCall(events);
    expect(perCall).toHaveLength(WRITERS.length);
    WRITERS.forEach(([command, path], i) => {
      const done = events.find(
        (e) => e.type === "tool_call_completed" && JSON.stringify(e).includes(JSON.stringify(command)),
      );
      expect(done, command).toBeDefined();
      expect(JSON.stringify(done)).toContain('"writes":"possible"');
      // git checkout undoes the earlier append: the fact says a.txt is back to its baseline.
      if (command.startsWith("git checkout")) expect(paths(perCall[i] ?? []), command).not.toContain(path);
      else expect(paths(perCall[i] ?? []), command).toContain(path);
    });
  });

  it("skips the rescan after a command that provably wrote nothing; the final review still finds everything", async () => {
    const { agent } = await agentFor(
      [
        call("sneak", { path: "hidden.txt" }),
        call("bash", { command: "cat a.txt | wc -l" }),
        call("bash", { command: "git status --short && git diff" }),
        call("bash", { command: "rg alpha 2>/dev/null; ls" }),
        // A command that may write: the rescan runs, and sees what the sneaking tool wrote too.
        call("bash", { command: "echo x > seen.txt" }),
        call("sneak", { path: "late.txt" }),
        call("bash", { command: "echo late" }),
        { text: "done" },
      ],
      FILES,
    );
    const { events, result } = await agent.run("look around");
    expect(result.stopReason).toBe("completed");
    const { perCall, afterCalls } = changesPerCall(events);
    expect(perCall.slice(0, 4).map(paths)).toEqual([[], [], [], []]);
    expect(paths(perCall[4] ?? []).sort()).toEqual(["hidden.txt", "seen.txt"]);
    expect(paths(perCall[6] ?? [])).toEqual([]);
    expect(paths(afterCalls).sort()).toEqual(["hidden.txt", "late.txt", "seen.txt"]);
  });
});
