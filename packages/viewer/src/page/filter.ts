// Narrowing a long transcript: rows whose shown text matches a query, or only what went wrong. The list
// then shows those rows, in order; opening a row is kept by the row, not by its place in the list.
import type { RowView } from "../view.js";

/** The text a row shows folded (what a query is matched against; bodies are not searched). */
function shownText(row: RowView): string {
  switch (row.kind) {
    case "call":
      return `${row.name} ${row.summary} ${row.errorKind ?? ""} ${row.decision ?? ""}`;
    case "approval":
      return `approval ${row.name} ${row.summary} ${row.decision ?? ""} ${row.reason ?? ""}`;
    case "reasoning":
      return `reasoning ${row.preview}`;
    case "turn":
      return row.label;
    case "fact":
      return `${row.factKind} ${row.text}`;
    default:
      return row.text;
  }
}

function wentWrong(row: RowView): boolean {
  return (
    (row.kind === "call" && (row.status === "error" || row.status === "failed")) ||
    (row.kind === "fact" && row.failed === true) ||
    (row.kind === "end" && !row.ok) ||
    (row.kind === "approval" && row.decision === "rejected") ||
    row.kind === "hook" ||
    row.kind === "damage"
  );
}

/** The indexes of the rows to show, or undefined for all of them. */
export function filterRows(
  rows: readonly RowView[],
  query: string,
  failuresOnly: boolean,
): number[] | undefined {
  const q = query.trim().toLowerCase();
  if (!q && !failuresOnly) return undefined;
  const out: number[] = [];
  rows.forEach((row, index) => {
    if (failuresOnly && !wentWrong(row)) return;
    if (q && !shownText(row).toLowerCase().includes(q)) return;
    out.push(index);
  });
  return out;
}
