// What an attacker with write access to the database does: rewrites text DBOS stored for a run.
import pg from "pg";
import { databaseUrl } from "./database.js";

/** Where DBOS keeps what a run records, by what it is (a version of DBOS may use either place). */
const PLACES = {
  request: [
    ["workflow_status", "inputs"],
    ["workflow_input", "inputs"],
  ],
  step: [["operation_outputs", "output"]],
  pending: [
    ["workflow_events", "value"],
    ["workflow_events_history", "value"],
  ],
  /** A run's output: its outcome, or where a parked run continues (its link to its continuation). */
  outcome: [
    ["workflow_status", "output"],
    ["workflow_output", "output"],
  ],
} as const;

/**
 * Replaces `from` with `to` in what the database holds of `runId` (`step`: the step named `stepName`);
 * returns how many rows changed, so a test fails when there was nothing to tamper with.
 */
export async function tamper(
  schema: string,
  runId: string,
  what: keyof typeof PLACES,
  from: string,
  to: string,
  stepName?: string,
): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let changed = 0;
  try {
    for (const [table, column] of PLACES[what]) {
      const exists = await client.query(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = $3",
        [schema, table, column],
      );
      if (exists.rowCount === 0) continue;
      const result = await client.query(
        `UPDATE "${schema}".${table} SET ${column} = replace(${column}, $2, $3)
          WHERE workflow_uuid = $1 AND strpos(${column}, $2) > 0${stepName ? " AND function_name = $4" : ""}`,
        stepName ? [runId, from, to, stepName] : [runId, from, to],
      );
      changed += result.rowCount ?? 0;
    }
  } finally {
    await client.end();
  }
  return changed;
}

/**
 * Deletes checkpoints of `runId`: the steps named in `names`, or with `from`, that step and every one
 * recorded after it (the newest part of the run's history). Returns how many rows went.
 */
export async function deleteSteps(
  schema: string,
  runId: string,
  which: { readonly names: readonly string[] } | { readonly from: string },
): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result =
      "names" in which
        ? await client.query(
            `DELETE FROM "${schema}".operation_outputs WHERE workflow_uuid = $1 AND function_name = ANY($2)`,
            [runId, which.names],
          )
        : await client.query(
            `DELETE FROM "${schema}".operation_outputs WHERE workflow_uuid = $1 AND function_id >=
              (SELECT min(function_id) FROM "${schema}".operation_outputs WHERE workflow_uuid = $1 AND function_name = $2)`,
            [runId, which.from],
          );
    return result.rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/** Writes a decision for `runId` straight into the decisions table, as a writer without the key would. */
export async function forgeDecision(
  schema: string,
  runId: string,
  topic: string,
  decision: unknown,
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO "${schema}".bridle_decisions (run_id, topic, decision) VALUES ($1, $2, $3)`,
      [runId, topic, JSON.stringify(decision)],
    );
  } finally {
    await client.end();
  }
}
