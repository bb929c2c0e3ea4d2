// Which engine processes are alive: each holds a Postgres advisory lock named after its executor id, on a
// connection of its own, for as long as it runs. The server drops the lock when the process dies (its
// connection closes), so a lock another process can take belongs to a process that is gone.
import { createHash } from "node:crypto";
import pg from "pg";

/** A two-integer advisory lock key for `name` (Postgres's two-argument form), from its SHA-256. */
export function advisoryLockKey(name: string): [number, number] {
  const digest = createHash("sha256").update(name).digest();
  return [digest.readInt32BE(0), digest.readInt32BE(4)];
}

function lockKey(executorId: string): [number, number] {
  return advisoryLockKey(`bridle-executor:${executorId}`);
}

export class ExecutorLease {
  readonly #client: pg.Client;

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  /** Takes the lock for `executorId`; `onLost` is called if the connection holding it breaks. */
  static async hold(
    databaseUrl: string,
    executorId: string,
    onLost: (error: Error) => void,
  ): Promise<ExecutorLease> {
    const client = new pg.Client({
      connectionString: databaseUrl,
      application_name: "bridle_executor_lease",
      // Each side notices the other gone: this process when the server vanishes, and below, the server
      // (so the lock drops and others take the runs) within about 8 s when this host vanishes.
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
    });
    await client.connect();
    client.on("error", onLost);
    await client.query(
      "SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 3",
    );
    const [a, b] = lockKey(executorId);
    const { rows } = await client.query<{ taken: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS taken", [
      a,
      b,
    ]);
    if (rows[0]?.taken !== true) {
      await client.end();
      throw new Error(`executor id ${executorId} is held by a running process`);
    }
    return new ExecutorLease(client);
  }

  /**
   * Runs `work` while holding the lease of `executorId` if nobody holds it (its process is gone), so two
   * processes never recover the same executor's runs at once; returns undefined when it is alive.
   */
  async whileDead<T>(executorId: string, work: () => Promise<T>): Promise<T | undefined> {
    const [a, b] = lockKey(executorId);
    const { rows } = await this.#client.query<{ taken: boolean }>(
      "SELECT pg_try_advisory_lock($1, $2) AS taken",
      [a, b],
    );
    if (rows[0]?.taken !== true) return undefined;
    try {
      return await work();
    } finally {
      await this.#client.query("SELECT pg_advisory_unlock($1, $2)", [a, b]);
    }
  }

  async release(): Promise<void> {
    this.#client.removeAllListeners("error");
    this.#client.on("error", () => {});
    await this.#client.end().catch(() => {});
  }
}
