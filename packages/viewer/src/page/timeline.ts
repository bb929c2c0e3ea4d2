// The waterfall: one bar per model request and tool call on the session's time axis, each turn's tokens
// and cost beside its model bar. Drawn as positioned blocks in a virtual list, so thousands of spans cost
// no more than a screenful.
import type { SessionView } from "../view.js";
import { formatCost, formatCount, formatMs, h } from "./dom.js";

/** The transcript row a bar stands for: its turn's header, or its tool call. */
export function rowOfSpan(view: SessionView, index: number): number {
  const span = view.spans[index];
  if (!span) return -1;
  return view.rows.findIndex((row) =>
    span.kind === "model"
      ? row.kind === "turn" && row.n === span.turn
      : row.kind === "call" && row.id === span.callId,
  );
}

export function renderSpan(view: SessionView, index: number): HTMLElement {
  const span = view.spans[index];
  if (!span) return h("div", { class: "span" });
  const { t0, end } = axis(view);
  const at = `+${formatMs(span.start - t0)}`;
  const total = Math.max(1, end - t0);
  const left = ((span.start - t0) / total) * 100;
  const width = Math.max(0.3, (span.durationMs / total) * 100);
  const turn = span.kind === "model" ? view.turns[span.turn - 1] : undefined;
  const extra = turn
    ? ` · ${formatCount(turn.usage.input)} in / ${formatCount(turn.usage.output)} out${turn.cost === undefined ? "" : ` · ${formatCost(turn.cost)}`}`
    : "";
  const bar = h("div", { class: `bar ${span.kind}${span.failed ? " failed" : ""}` });
  bar.style.left = `${left}%`;
  bar.style.width = `${width}%`;
  return h(
    "div",
    { class: `span ${span.kind}` },
    h("div", { class: "span-label" }, `${span.kind === "tool" ? "  " : ""}${span.label}`),
    h("div", { class: "track" }, bar),
    h("div", { class: "span-meta" }, `${formatMs(span.durationMs)} at ${at}${extra}`),
  );
}

let cache: { view: SessionView; t0: number; end: number } | undefined;

/** The time axis: the earliest start and the latest end of any span (computed once per view). */
function axis(view: SessionView): { t0: number; end: number } {
  if (cache?.view === view) return cache;
  let t0 = Number.POSITIVE_INFINITY;
  let end = 0;
  for (const span of view.spans) {
    t0 = Math.min(t0, span.start);
    end = Math.max(end, span.start + span.durationMs);
  }
  cache = { view, t0: Number.isFinite(t0) ? t0 : 0, end };
  return cache;
}
