// The session store the settings name. Each store package is imported only when chosen.
import { join } from "node:path";
import type { SessionStore } from "@bridle/core";
import { CodingAgentError } from "./errors.js";
import type { CodingAgentSettings } from "./settings.js";

export async function openStore(
  settings: Pick<CodingAgentSettings, "store" | "storeDir" | "databaseUrl">,
): Promise<SessionStore> {
  if (settings.store === "postgres") {
    if (!settings.databaseUrl) {
      throw new CodingAgentError(
        "invalid_settings",
        "--store postgres needs --database-url URL (or BRIDLE_DATABASE_URL)",
      );
    }
    const { PostgresSessionStore } = await import("@bridle/store-postgres");
    try {
      return await PostgresSessionStore.open({ connectionString: settings.databaseUrl, max: 4 });
    } catch (error) {
      throw new CodingAgentError(
        "setup_failed",
        `cannot open the Postgres session store: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  if (settings.store === "sqlite") {
    const { SqliteSessionStore } = await import("@bridle/store-sqlite");
    return SqliteSessionStore.open({ path: join(settings.storeDir, "sessions.sqlite") });
  }
  const { JsonlSessionStore } = await import("@bridle/store-jsonl");
  return JsonlSessionStore.open({ dir: join(settings.storeDir, "jsonl"), durability: "batch" });
}
