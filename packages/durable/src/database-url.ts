// The connection string DBOS gets. DBOS sets idle_in_transaction_session_timeout on each new connection
// of its pool with a query sent as the connection is handed out, beside the borrower's own first query:
// node-postgres then sees one client used concurrently (its "already executing a query" deprecation,
// an error in pg 9). Setting it as a startup option instead makes DBOS skip its query.

/** What DBOS would set (its default), in milliseconds. */
const IDLE_IN_TRANSACTION_MS = 60_000;

export function dbosDatabaseUrl(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    // Not a URL (a key=value string): left as it is, and DBOS sends its query as before.
    return databaseUrl;
  }
  const options = url.searchParams.get("options") ?? "";
  if (options.includes("idle_in_transaction_session_timeout")) return databaseUrl;
  url.searchParams.set(
    "options",
    `${options} -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`.trim(),
  );
  return url.toString();
}
