/**
 * A class the strict policy closes, with examples a table test checks (test/policy-classes.test.ts): each
 * command runs in that test's example world (a workspace with a `.env`, links, nested and hostile
 * repositories, a folder outside holding a canary), must get the decision given ("block": ask or deny),
 * and, when allowed, is run there for real and must do no harm.
 */
export interface ClassRule {
  readonly why: string;
  readonly examples: readonly Example[];
}

export type Example = readonly [command: string, expect: "allow" | "ask" | "deny" | "block"];
