// What a failed worker-process test prints, so a failure seen once on a loaded machine can be explained
// afterwards: the run's row and steps as DBOS recorded them, its effect lines, and every worker's end.
import pg from "pg";
import { databaseUrl } from "./database.js";
import { readEffects } from "./fixtures/effect-tools.js";
import type { WorkerProcess } from "./workers.js";

export async function diagnosis(
  schema: string,
  runIds: readonly string[],
  logFile: string,
  workers: readonly WorkerProcess[],
): Promise<string> {
  const parts: string[] = [];
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => {});
  try {
    await client.connect();
    const quoted = `"${schema.replaceAll('"', '""')}"`;
    for (const runId of runIds) {
      const status = await client.query(
        `SELECT status, executor_id, recovery_attempts, queue_name, application_version, error
           FROM ${quoted}.workflow_status WHERE workflow_uuid = $1`,
        [runId],
      );
      parts.push(`run ${runId}: ${JSON.stringify(status.rows[0] ?? "no row")}`);
      const steps = await client.query<{
        function_id: number;
        function_name: string;
        done: boolean;
        error: string | null;
      }>(
        `SELECT function_id, function_name, output IS NOT NULL AS done, error
           FROM ${quoted}.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id`,
        [runId],
      );
      parts.push(
        `  steps: ${steps.rows.map((row) => `${row.function_id}:${row.function_name}${row.error ? ` ERROR ${row.error.slice(0, 300)}` : row.done ? "" : " (no output)"}`).join(", ")}`,
      );
    }
  } catch (error) {
    parts.push(`(reading the runs failed: ${String(error)})`);
  } finally {
    await client.end().catch(() => {});
  }
  const wanted = new Set(runIds);
  const effects = readEffects(logFile).filter((line) => wanted.has(line.runId));
  parts.push(
    `effects (${effects.length}):`,
    ...effects.map((line) => `  ${line.pid} ${line.callId} ${line.event}${line.repeated ? " repeated" : ""}`),
  );
  for (const worker of workers) {
    parts.push(
      `worker ${worker.child.pid} (${worker.executorId}) exit ${worker.child.exitCode ?? worker.child.signalCode ?? "running"}; stderr: ${worker.stderr.slice(-1500) || "(none)"}`,
    );
  }
  return parts.join("\n");
}
