// The page's entry: reads the embedded data, draws the session (or the server's session list), marks the
// first screen for the performance test, and follows a served session live.
import type { LiveSource, SessionView } from "../view.js";
import { readPageData, refetch, showingSession } from "./data.js";
import { formatCost, formatCount, formatMs, h } from "./dom.js";
import { filterRows } from "./filter.js";
import { renderSessionList } from "./sessions.js";
import { renderSetup } from "./setup.js";
import { renderSpan, rowOfSpan } from "./timeline.js";
import { renderRow, type TranscriptState } from "./transcript.js";
import { renderUsage } from "./usage.js";
import { virtualList } from "./virtual-list.js";

const TABS = ["transcript", "timeline", "usage", "setup"] as const;
type Tab = (typeof TABS)[number];
const TAB_LABELS: Record<Tab, string> = {
  transcript: "Transcript",
  timeline: "Timeline",
  usage: "Usage",
  setup: "System prompt & tools",
};

type LinkTo = (id: string) => HTMLElement;

function liveText(view: SessionView): string {
  return view.summary.running ? "● live" : "○ not running";
}

function header(view: SessionView, live: LiveSource | undefined, sessionLink: LinkTo): HTMLElement {
  const s = view.summary;
  const u = s.usage;
  const facts = [
    `${formatCount(s.runs)} run${s.runs === 1 ? "" : "s"}`,
    `${formatCount(s.turns)} turn${s.turns === 1 ? "" : "s"}`,
    `${formatCount(s.toolCalls)} tool call${s.toolCalls === 1 ? "" : "s"}${s.failedCalls ? ` (${formatCount(s.failedCalls)} failed)` : ""}`,
    `${formatCount(u.input)} tokens in · ${formatCount(u.output)} out${u.cacheRead ? ` · ${formatCount(u.cacheRead)} cached` : ""}`,
    ...(s.cost === undefined ? [] : [formatCost(s.cost)]),
    formatMs(s.durationMs),
    `${formatCount(s.events)} events`,
  ];
  const el = h(
    "header",
    {},
    h("h1", {}, view.session.title ?? view.session.id),
    h(
      "div",
      { class: "sid" },
      `session ${view.session.id}`,
      // Following the session, the page says "live" only while one of its runs is going.
      live ? h("span", { class: "live", id: "live" }, ` ${liveText(view)}`) : undefined,
    ),
    h("div", { class: "summary-line", id: "summary" }, facts.join(" · ")),
  );
  const parent = view.session.parent;
  if (parent)
    el.append(
      h("div", { class: "branch" }, "fork of ", sessionLink(parent.sessionId), ` at event ${parent.seq}`),
    );
  if (view.branches.length > 0) {
    const list = h("div", { class: "branch" }, `branches (${view.branches.length}): `);
    for (const b of view.branches)
      list.append(sessionLink(b.id), ` at ${b.seq}${b.title ? ` “${b.title}”` : ""}  `);
    el.append(list);
  }
  if (view.handoff) {
    el.append(
      h("details", { class: "handoff" }, h("summary", {}, "Evidence handoff"), h("pre", {}, view.handoff)),
    );
  }
  return el;
}

function sessionPage(
  root: HTMLElement,
  initial: SessionView,
  live: LiveSource | undefined,
  related: readonly SessionView[],
): void {
  const state: TranscriptState = { view: initial, open: new Set() };
  showingSession(initial.session.id);
  // Another session of the tree: a link to its page when served; in an export, the same page shows it
  // when it came along, else its id.
  const sessionLink: LinkTo = (id) => {
    if (live) return h("a", { href: `${live.sessionBase}${encodeURIComponent(id)}` }, id);
    const other = [initial, ...related].find((v) => v.session.id === id);
    if (!other) return h("code", {}, id);
    const button = h("button", { type: "button", class: "session-link" }, id);
    button.addEventListener("click", () => switchTo(other));
    return button;
  };
  let headerEl = header(initial, live, sessionLink);
  const switchTo = (view: SessionView) => {
    state.view = view;
    state.open.clear();
    showingSession(view.session.id);
    clearFilter();
    const next = header(view, live, sessionLink);
    headerEl.replaceWith(next);
    headerEl = next;
    transcript.refresh(shownCount());
    timeline?.refresh(view.spans.length);
    show("transcript");
    transcript.scrollTo(0);
  };
  const tabs = h("nav", { class: "tabs" });
  const body = h("div", { class: "pane" });
  root.append(headerEl, tabs, body);

  // The rows the list shows (undefined: all of them), and each list position's row.
  let order: number[] | undefined;
  const rowAt = (position: number) => (order ? (order[position] ?? -1) : position);
  const positionOf = (row: number) => (order ? order.indexOf(row) : row);
  const shownCount = () => order?.length ?? state.view.rows.length;
  const transcript = virtualList(
    initial.rows.length,
    (position) =>
      renderRow(state, rowAt(position), (index) => {
        if (state.open.has(index)) state.open.delete(index);
        else state.open.add(index);
        transcript.refresh(shownCount(), positionOf(index));
      }),
    {
      estimate: 30,
      onFirstPaint: () => {
        performance.mark("bridle:first-screen");
        document.body.dataset.ready = "true";
      },
    },
  );
  let timeline: ReturnType<typeof virtualList> | undefined;
  let shown: Tab = "transcript";
  // A bar of the waterfall opens its row in the transcript (a tool call's, opened; a turn's header).
  const spanRow = (index: number): HTMLElement => {
    const el = renderSpan(state.view, index);
    el.setAttribute("role", "button");
    el.tabIndex = 0;
    const go = () => {
      const row = rowOfSpan(state.view, index);
      if (row < 0) return;
      show("transcript");
      if (state.view.rows[row]?.kind === "call") state.open.add(row);
      // A row the filter hides is shown by clearing the filter.
      if (positionOf(row) < 0) clearFilter();
      transcript.refresh(shownCount());
      // Once the list is back in the page and measured: scrolling a detached list goes nowhere.
      requestAnimationFrame(() => transcript.scrollTo(positionOf(row)));
    };
    el.addEventListener("click", go);
    el.addEventListener("keydown", (event) => {
      if (event.key === "Enter") go();
    });
    return el;
  };
  const show = (name: Tab) => {
    for (const b of tabs.children) b.classList.toggle("active", (b as HTMLElement).dataset.tab === name);
    body.replaceChildren();
    if (name === "transcript") body.append(transcript.element);
    else if (name === "usage") body.append(renderUsage(state.view));
    else if (name === "setup") body.append(renderSetup(state.view));
    else {
      timeline ??= virtualList(state.view.spans.length, (i) => spanRow(i), { estimate: 24 });
      body.append(timeline.element);
    }
    shown = name;
  };
  const search = h("input", {
    type: "search",
    placeholder: "filter rows",
    "aria-label": "filter rows",
  }) as HTMLInputElement;
  const failures = h("input", { type: "checkbox", id: "failures-only" }) as HTMLInputElement;
  const applyFilter = () => {
    order = filterRows(state.view.rows, search.value, failures.checked);
    transcript.refresh(shownCount());
    if (shown !== "transcript") show("transcript");
  };
  const clearFilter = () => {
    search.value = "";
    failures.checked = false;
    order = undefined;
  };
  search.addEventListener("input", applyFilter);
  failures.addEventListener("change", applyFilter);
  for (const name of TABS) {
    const b = h("button", { type: "button", "data-tab": name }, TAB_LABELS[name]);
    b.addEventListener("click", () => show(name));
    tabs.append(b);
  }
  tabs.append(
    h("span", { class: "filter" }, search, h("label", { for: "failures-only" }, failures, " failures only")),
  );
  show("transcript");

  if (!live) return;
  let busy = false;
  let again = false;
  const update = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const follow = transcript.atEnd();
      state.view = await refetch(live);
      const next = header(state.view, live, sessionLink);
      headerEl.replaceWith(next);
      headerEl = next;
      if (order) order = filterRows(state.view.rows, search.value, failures.checked);
      transcript.refresh(shownCount());
      timeline?.refresh(state.view.spans.length);
      if (shown === "usage" || shown === "setup") show(shown);
      if (follow) transcript.scrollToEnd();
      document.body.dataset.lastSeq = String(state.view.session.lastSeq);
    } catch {
      // The server went away or the session could not be read: say so; the next event tries again.
      liveState("○ not updating");
    } finally {
      busy = false;
      if (again) {
        again = false;
        void update();
      }
    }
  };
  document.body.dataset.lastSeq = String(initial.session.lastSeq);
  // The badge in the header says whether the page is still following (EventSource reconnects by itself).
  const liveState = (text: string) => {
    const badge = document.getElementById("live");
    if (badge) badge.textContent = ` ${text}`;
  };
  const events = new EventSource(live.eventsUrl);
  events.addEventListener("error", () => {
    document.body.dataset.following = "false";
    liveState("○ reconnecting");
  });
  // Whether the session's process runs changed with no new event (it exited, or it died).
  events.addEventListener("state", () => void update());
  events.addEventListener("seq", (message) => {
    // Whether the page hears the server, apart from whether the session runs (tests wait on it).
    document.body.dataset.following = "true";
    liveState(liveText(state.view));
    if (Number((message as MessageEvent<string>).data) !== state.view.session.lastSeq) void update();
  });
}

const root = document.getElementById("app");
if (root) {
  const data = readPageData();
  if (data.page === "list") {
    root.append(renderSessionList(data.sessions, data.stores));
    document.body.dataset.ready = "true";
  } else sessionPage(root, data.view, data.live, data.related ?? []);
}
