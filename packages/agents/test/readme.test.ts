import { Harness, type HarnessOptions } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { expect, it } from "vitest";
import { Agents, loadAgentDefinitions } from "../src/index.js";

// The README's first example, as written there.
it("runs the README example", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "agent_spawn", arguments: { agent_id: "reviewer", task: "review src/" } }] },
    { text: "The reviewer found nothing." },
  ]);
  const worker = new ScriptedModel([{ text: "No problems found." }]);
  const parent = { model, tools: [], limits: { maxModelRequests: 40 } } satisfies HarnessOptions;
  const agents = new Agents({
    parent,
    agents: [
      {
        name: "reviewer",
        description: "Reviews code and lists problems",
        system: "You review code. Report problems only.",
        tools: [],
        model: worker,
        limits: { maxModelRequests: 8 },
      },
      ...(await loadAgentDefinitions(".bridle/agents")),
    ],
  });
  const harness = new Harness({ ...parent, tools: [...parent.tools, ...agents.tools] });
  const result = await harness.run({ prompt: "get the code reviewed" });
  expect(result.finalText).toBe("The reviewer found nothing.");
  expect(worker.requests[0]?.messages).toHaveLength(1);
  await agents.close();
});
