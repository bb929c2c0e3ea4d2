import { afterAll, describe, expect, it } from "vitest";
import { checkCommand } from "../../src/index.js";
import { type Expect, type Row, TABLES } from "./cases.js";
import { harmDone, makeWorld, removeTemplate, removeWorld, type World } from "./fixture.js";

// The attack suite: one table per class the policy must close. Each row is checked in a fresh world
// (workspace, a canary .env, a folder beside it, HOME); a row the policy allows is then run for real
// there and must do no harm: no write outside the workspace, no canary in its output, no planted code run.

afterAll(() => removeTemplate());

function fill(command: string, world: World): string {
  return command.replaceAll("{OUT}", world.outside).replaceAll("{HOME}", world.home);
}

function matches(decision: string, expected: Expect): boolean {
  return expected === "block" ? decision !== "allow" : decision === expected;
}

const total = Object.values(TABLES).reduce((sum, rows) => sum + rows.length, 0);

describe("attack suite", () => {
  it("holds at least 250 cases", () => {
    expect(total).toBeGreaterThanOrEqual(250);
  });

  for (const [name, rows] of Object.entries(TABLES)) {
    describe(name, () => {
      it.each(rows.map((row): [string, Row] => [JSON.stringify(row[0]).slice(0, 90), row]))(
        "%s",
        async (_label, [template, expected]) => {
          const world = makeWorld();
          try {
            const command = fill(template, world);
            const result = await checkCommand(command, { workspace: world.ws });
            expect(
              matches(result.decision, expected),
              `${result.decision} (expected ${expected}): ${result.reasons.join(" | ")}`,
            ).toBe(true);
            if (result.decision === "allow") expect(await harmDone(world, command)).toEqual([]);
          } finally {
            removeWorld(world);
          }
        },
      );
    });
  }
});
