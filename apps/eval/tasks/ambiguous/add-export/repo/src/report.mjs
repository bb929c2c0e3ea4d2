export function buildReport(rows) {
  return { rows, total: rows.reduce((t, r) => t + r.amount, 0) };
}
