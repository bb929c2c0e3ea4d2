// Whole shell sessions of Bridle and of pi's coding agent (installed into ~/.cache/bridle-bench/pi when
// missing), side by side; the harness's own figures per tool turn are printed as a table at the end.
import { afterAll, bench, describe } from "vitest";
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

describe(`one-shot session of ${TURNS} shell tool turns on a loopback model`, () => {
  for (const agent of agents) {
    bench(
      agent.name,
      async () => {
        sessions.push(await measureSession(agent, { toolTurns: TURNS }));
      },
      { iterations: 5, warmupIterations: 1, time: 0 },
    );
  }
  afterAll(() => {
    console.log(`\n${formatOverhead(summarizeOverhead(sessions), TURNS)}\n`);
  });
});
