// Where the time and money went, per tool and per model: totals over the session's calls and turns.
import type { SessionView } from "../view.js";
import { formatCost, formatCount, formatMs, h } from "./dom.js";

function table(head: readonly string[], rows: readonly (readonly string[])[], cls: string): HTMLElement {
  return h(
    "table",
    { class: cls },
    h("thead", {}, h("tr", {}, ...head.map((text) => h("th", {}, text)))),
    h(
      "tbody",
      {},
      ...rows.map((row) =>
        h("tr", {}, ...row.map((text, i) => h("td", i > 0 ? { class: "num" } : {}, text))),
      ),
    ),
  );
}

export function renderUsage(view: SessionView): HTMLElement {
  const tools = new Map<string, { calls: number; failed: number; ms: number }>();
  for (const row of view.rows) {
    if (row.kind !== "call") continue;
    const t = tools.get(row.name) ?? { calls: 0, failed: 0, ms: 0 };
    t.calls++;
    if (row.status === "error" || row.status === "failed") t.failed++;
    t.ms += row.durationMs ?? 0;
    tools.set(row.name, t);
  }
  const models = new Map<
    string,
    { turns: number; input: number; output: number; ms: number; cost?: number }
  >();
  for (const turn of view.turns) {
    const m = models.get(turn.model) ?? { turns: 0, input: 0, output: 0, ms: 0, cost: 0 };
    m.turns++;
    m.input += turn.usage.input;
    m.output += turn.usage.output;
    m.ms += turn.durationMs;
    // One turn without a price makes the model's total unknown rather than too low.
    m.cost = m.cost === undefined || turn.cost === undefined ? undefined : m.cost + turn.cost;
    models.set(turn.model, m);
  }
  const byTime = <T extends { ms: number }>(entries: Map<string, T>) =>
    [...entries].sort((a, b) => b[1].ms - a[1].ms);
  return h(
    "main",
    { class: "usage" },
    h("h2", {}, "Tools"),
    table(
      ["tool", "calls", "failed", "total time", "mean time"],
      byTime(tools).map(([name, t]) => [
        name,
        formatCount(t.calls),
        formatCount(t.failed),
        formatMs(t.ms),
        formatMs(t.ms / t.calls),
      ]),
      "tools-table",
    ),
    h("h2", {}, "Models"),
    table(
      ["model", "turns", "tokens in", "tokens out", "time", "cost"],
      byTime(models).map(([name, m]) => [
        name || "(unnamed)",
        formatCount(m.turns),
        formatCount(m.input),
        formatCount(m.output),
        formatMs(m.ms),
        m.cost === undefined ? "unknown" : formatCost(m.cost),
      ]),
      "models-table",
    ),
  );
}
