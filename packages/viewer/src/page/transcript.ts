// One transcript row per kind. Tool calls, reasoning and long texts are folded: the row shows one line,
// a click opens it and only then are its bodies read (and its diff computed).
import type { EditView, RowView, SessionView } from "../view.js";
import { body } from "./data.js";
import { renderEdit } from "./diff.js";
import { formatCost, formatCount, formatMs, h } from "./dom.js";

export interface TranscriptState {
  view: SessionView;
  readonly open: Set<number>;
}

/** Past this many characters a text is cut when opened: a browser lays out megabytes of text slowly. */
const SHOWN = 200_000;

function pre(text: string, cls = "body"): HTMLElement {
  if (text.length <= SHOWN) return h("pre", { class: cls }, text);
  const more = `\n… ${(text.length - SHOWN).toLocaleString("en-US")} more characters not shown`;
  return h("pre", { class: cls }, text.slice(0, SHOWN), h("span", { class: "meta" }, more));
}

function toggle(label: HTMLElement[], open: boolean, onToggle: () => void): HTMLElement {
  const button = h(
    "button",
    { class: "fold", type: "button", "aria-expanded": String(open) },
    open ? "▾ " : "▸ ",
    ...label,
  );
  button.addEventListener("click", onToggle);
  return button;
}

function turnHeader(view: SessionView, n: number, label: string): HTMLElement {
  const turn = view.turns[n - 1];
  if (!turn) return h("div", { class: "turn" }, label);
  const tokens = `${formatCount(turn.usage.input)} in · ${formatCount(turn.usage.output)} out`;
  const parts = [
    turn.model,
    formatMs(turn.durationMs),
    tokens,
    turn.cost === undefined ? "" : formatCost(turn.cost),
  ].filter(Boolean);
  return h("div", { class: "turn" }, h("strong", {}, label), ` · ${parts.join(" · ")}`);
}

/** The model's JSON arguments indented for reading; any other text (a free-form patch) as it is. */
function readableArgs(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

function callRow(row: Extract<RowView, { kind: "call" }>, open: boolean, onToggle: () => void): HTMLElement {
  const status =
    row.status === "error" || row.status === "failed"
      ? ` · ${row.errorKind ?? "error"}`
      : row.status === "pending"
        ? " · running"
        : "";
  const label = [
    h("span", { class: "tool-name" }, row.name),
    h("span", { class: "summary" }, ` ${row.summary}`),
    h(
      "span",
      { class: "meta" },
      `${row.durationMs === undefined ? "" : ` · ${formatMs(row.durationMs)}`}${status}`,
    ),
  ];
  const el = h("div", { class: `row call ${row.status}` }, toggle(label, open, onToggle));
  if (row.decision) el.append(h("div", { class: "decision" }, `refused: ${row.decision}`));
  if (open) {
    if (row.edit !== undefined) el.append(renderEdit(JSON.parse(body(row.edit)) as EditView));
    el.append(h("div", { class: "label" }, "arguments"), pre(readableArgs(body(row.args))));
    if (row.result !== undefined) el.append(h("div", { class: "label" }, "result"), pre(body(row.result)));
  }
  return el;
}

/** A subagent's rows sit indented under the call that started them (deeper ones further, up to four). */
export function renderRow(
  state: TranscriptState,
  index: number,
  onToggle: (index: number) => void,
): HTMLElement {
  const el = rowElement(state, index, onToggle);
  const depth = state.view.rows[index]?.depth ?? 0;
  if (depth > 0) {
    el.classList.add("nested", `depth-${Math.min(depth, 4)}`);
    el.dataset.depth = String(depth);
  }
  return el;
}

function rowElement(state: TranscriptState, index: number, onToggle: (index: number) => void): HTMLElement {
  const row = state.view.rows[index];
  const open = state.open.has(index);
  const flip = () => onToggle(index);
  if (!row) return h("div", { class: "row" });
  switch (row.kind) {
    case "turn":
      return turnHeader(state.view, row.n, row.label);
    case "run":
      return h("div", { class: "row run" }, row.text);
    case "end":
      return h("div", { class: `row end ${row.ok ? "ok" : "failed"}` }, row.text);
    case "user":
    case "assistant": {
      const el = h(
        "div",
        { class: `row ${row.kind}` },
        h("div", { class: "who" }, row.kind === "user" ? "user" : "assistant"),
      );
      if (row.body !== undefined && open) el.append(pre(body(row.body), "text"));
      else el.append(pre(row.text, "text"));
      if (row.body !== undefined)
        el.append(toggle([h("span", {}, open ? "show less" : "show all")], open, flip));
      return el;
    }
    case "reasoning": {
      const el = h(
        "div",
        { class: "row reasoning" },
        toggle([h("span", { class: "summary" }, `reasoning: ${row.preview}`)], open, flip),
      );
      if (open) el.append(pre(body(row.body), "text"));
      return el;
    }
    case "call":
      return callRow(row, open, flip);
    case "approval": {
      const decision = row.decision === undefined ? "awaiting a decision" : row.decision;
      const reason = row.reason ? ` (${row.reason})` : "";
      return h(
        "div",
        { class: `row approval ${row.decision ?? "pending"}` },
        `approval: ${row.name} ${row.summary} → ${decision}${reason}`,
      );
    }
    case "hook":
      return h("div", { class: "row hook" }, row.text);
    case "notice":
    case "fact": {
      const cls = row.kind === "fact" ? `row fact${row.failed ? " failed" : ""}` : "row notice";
      const text = row.kind === "fact" ? `${row.factKind}: ${row.text}` : row.text;
      if (row.body === undefined) return h("div", { class: cls }, text);
      const el = h("div", { class: cls }, toggle([h("span", {}, text)], open, flip));
      if (open) el.append(pre(body(row.body)));
      return el;
    }
    case "branch":
      return h("div", { class: "row branch-mark" }, `↳ ${row.text}`);
    case "damage":
      return h("div", { class: "row damage" }, `damaged entry: ${row.text}`);
  }
}
