// Whole shell sessions of Bridle and of pi's coding agent (installed into ~/.cache/bridle-bench/pi when
// missing), interleaved; the harness's own figures per tool turn are printed as a table at the end.
import { test } from "vitest";
import { measureSession, type SessionFigures } from "../src/overhead/measure.js";
import {
  availableAgents,
  defaultBridleScript,
  formatOverhead,
  summarizeOverhead,
} from "../src/overhead/suite.js";

const TURNS = 50;
const agents = availableAgents({
  bridle: defaultBridleScript(),
  install: true,
  log: (line) => console.error(line),
}).filter((agent) => agent.script !== undefined);
const sessions: SessionFigures[] = [];

/** The table of every session so far, printed once the bench is done. */
function printTable(): void {
  process.stderr.write(`\n${formatOverhead(summarizeOverhead(sessions), TURNS)}\n\n`);
}

test(`one-shot session of ${TURNS} shell tool turns on a loopback model`, async ({ bench }) => {
  // One iteration runs one session of each agent in turn, so a change in the machine's load falls on both
  // (the shared machines swing), and the table compares sessions run side by side.
  await bench(agents.map((agent) => agent.name).join(" then "), async () => {
    for (const agent of agents) sessions.push(await measureSession(agent, { toolTurns: TURNS }));
  }).run({
    iterations: 5,
    warmupIterations: 1,
    time: 0,
    teardown: (_task, mode) => {
      if (mode === "run") printTable();
    },
  });
});
