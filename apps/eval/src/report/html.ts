// The report as one HTML file: inline CSS, inline SVG charts, a few lines of inline script to filter the
// runs table. No network: it opens from disk, attached to a CI run or mailed.
import { asExpected, madeEdits, type ResultLine } from "../result.js";
import { type GroupStats, groupStats, wilson } from "./stats.js";

/** Bar colours of the edit-format chart: fixed per format, so reports compare at a glance. */
export const FORMAT_COLORS: Readonly<Record<string, string>> = {
  replace: "#1f77b4",
  hashline: "#ff7f0e",
  apply_patch: "#2ca02c",
};
const OTHER_COLOR = "#7f7f7f";
export const formatColor = (format: string): string => FORMAT_COLORS[format] ?? OTHER_COLOR;

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const usd = (x: number): string => `$${x.toFixed(x < 1 ? 4 : 2)}`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

function rateBar(stats: GroupStats): string {
  // 200 px wide: the rate as a bar, the 95% interval as a whisker across it.
  const x = (v: number) => (v * 200).toFixed(1);
  return `<svg class="rate" width="204" height="14" role="img" aria-label="${pct(stats.rate)}"><rect x="2" y="3" width="200" height="8" fill="#eee"/><rect x="2" y="3" width="${x(stats.rate)}" height="8" fill="${stats.rate >= 0.5 ? "#3a9a5b" : "#c9453b"}"/><line x1="${Number(x(stats.interval.low)) + 2}" x2="${Number(x(stats.interval.high)) + 2}" y1="7" y2="7" stroke="#222" stroke-width="1.5"/></svg>`;
}

function statsTable(title: string, id: string, groups: readonly GroupStats[], keyName?: string): string {
  const rows = groups
    .map(
      (g) =>
        `<tr><td>${escapeHtml(g.key)}</td><td class="num">${g.n}</td><td class="num">${g.passes}</td><td class="num">${pct(g.rate)}</td><td class="num">${pct(g.interval.low)} – ${pct(g.interval.high)}</td><td>${rateBar(g)}</td><td class="num">${(g.failedEditCalls / g.n).toFixed(2)}</td><td class="num">${(g.turns / g.n).toFixed(1)}</td><td class="num">${Math.round(g.tokens / g.n)}</td><td class="num">${usd(g.costUsd)}</td></tr>`,
    )
    .join("");
  return `<section id="${id}"><h2>${escapeHtml(title)}</h2><table><thead><tr><th>${escapeHtml(keyName ?? title.replace(/^Pass rate by /, ""))}</th><th>runs</th><th>passed</th><th>rate</th><th>95% CI (Wilson)</th><th></th><th>failed edits/run</th><th>turns/run</th><th>tokens/run</th><th>cost</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

/** The edit-format benchmark's table (its lines name the injected mistake in `script`), when present. */
function editBenchTable(lines: readonly ResultLine[]): string {
  const bench = lines.filter((line) => line.suite === "edit-format");
  if (bench.length === 0) return "";
  return statsTable(
    "Edit-format benchmark",
    "edit-bench",
    groupStats(bench, (line) => `${line.format} / ${line.script}`),
    "format / injected mistake",
  );
}

/** Success rate per edit format as vertical bars with interval whiskers, plus failed edit calls per run. */
function formatChart(lines: readonly ResultLine[]): string {
  const groups = groupStats(
    lines.filter((line) => line.format !== "none" && madeEdits(line)),
    (line) => line.format,
  );
  if (groups.length === 0)
    return `<section id="by-format-chart"><h2>Edit success by format</h2><p>No run made an edit.</p></section>`;
  const barWidth = 80;
  const gap = 120;
  const height = 220;
  const top = 20;
  const left = 50;
  const width = left + groups.length * (barWidth + gap);
  const y = (rate: number) => top + (1 - rate) * height;
  const bars = groups
    .map((g, i) => {
      const x = left + gap / 2 + i * (barWidth + gap);
      const cx = x + barWidth / 2;
      const barHeight = Math.max(g.rate * height, 0);
      return `<g class="bar" data-format="${escapeHtml(g.key)}" data-rate="${g.rate.toFixed(4)}"><rect x="${x}" y="${y(g.rate).toFixed(1)}" width="${barWidth}" height="${barHeight.toFixed(1)}" fill="${formatColor(g.key)}"><title>${escapeHtml(g.key)}: ${g.passes}/${g.n} (${pct(g.rate)})</title></rect><line x1="${cx}" x2="${cx}" y1="${y(g.interval.high).toFixed(1)}" y2="${y(g.interval.low).toFixed(1)}" stroke="#222" stroke-width="2"/><text x="${cx}" y="${top + height + 16}" text-anchor="middle">${escapeHtml(g.key)}</text><text x="${cx}" y="${top + height + 32}" text-anchor="middle" class="small">${pct(g.rate)} of ${g.n}, ${(g.failedEditCalls / g.n).toFixed(2)} failed edits/run</text></g>`;
    })
    .join("");
  const axis = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (tick) =>
        `<line x1="${left}" x2="${width}" y1="${y(tick)}" y2="${y(tick)}" stroke="#ddd"/><text x="${left - 6}" y="${y(tick) + 4}" text-anchor="end" class="small">${tick * 100}%</text>`,
    )
    .join("");
  return `<section id="by-format-chart"><h2>Edit success by format</h2><svg id="format-chart" width="${width + 20}" height="${top + height + 44}" role="img" aria-label="pass rate by edit format">${axis}${bars}</svg></section>`;
}

function topTable(
  title: string,
  id: string,
  lines: readonly ResultLine[],
  value: (line: ResultLine) => string,
): string {
  const rows = lines
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.suite)}/${escapeHtml(line.taskId)}</td><td>${escapeHtml(line.script)} #${line.runIndex}</td><td>${escapeHtml(line.model)}</td><td class="num">${value(line)}</td><td>${eventsLink(line)}</td></tr>`,
    )
    .join("");
  return `<section id="${id}"><h2>${escapeHtml(title)}</h2><table><thead><tr><th>task</th><th>run</th><th>model</th><th></th><th>session</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

// The viewer's page when the run has one; the raw events only for lines written before pages were.
const eventsLink = (line: ResultLine): string => {
  const href = line.viewPath ?? line.eventsPath;
  return href ? `<a href="${escapeHtml(href)}">${escapeHtml(line.sessionId.slice(0, 8))}</a>` : "";
};

/** What the run's outcome means: a deliberately bad agent's failure is the expected outcome, not a FAIL. */
function outcomeLabel(line: ResultLine): string {
  if (line.expect === "fail") return line.pass ? "UNEXPECTED pass" : "expected FAIL";
  return line.pass ? "pass" : "FAIL";
}

/** The deliberately bad agents (sabotage and `expect: "fail"` scripts): the share each check caught. */
function badAgentsTable(lines: readonly ResultLine[]): string {
  const bad = lines.filter((line) => line.expect === "fail");
  if (bad.length === 0) return "";
  const caught = bad.map((line) => ({ ...line, pass: !line.pass }));
  return statsTable(
    "Bad agents caught (their checks failed, as expected)",
    "bad-agents",
    groupStats(caught, (line) =>
      line.script.startsWith("sabotage-") ? line.script : "task's own bad script",
    ),
    "bad agent",
  ).replace("<th>passed</th>", "<th>caught</th>");
}

function runsTable(lines: readonly ResultLine[]): string {
  const rows = lines
    .map(
      (line) =>
        `<tr class="${asExpected(line) ? (line.pass ? "pass" : "expected-fail") : "fail"}"><td>${escapeHtml(line.suite)}</td><td>${escapeHtml(line.taskId)}</td><td>${escapeHtml(line.script)} #${line.runIndex}</td><td>${escapeHtml(line.format)}</td><td>${escapeHtml(line.provider)}/${escapeHtml(line.model)}</td><td>${outcomeLabel(line)}</td><td class="num">${line.score.toFixed(2)}</td><td class="num">${line.turns}</td><td class="num">${line.toolCalls}</td><td class="num">${line.failedToolCalls}</td><td class="num">${line.inputTokens + line.outputTokens}</td><td class="num">${line.costUsd === null ? "?" : usd(line.costUsd)}</td><td class="num">${seconds(line.durationMs)}</td><td>${escapeHtml([...(line.error ? [`${line.error.code}: ${line.error.message}`] : []), ...line.notes].join("; "))}</td><td>${eventsLink(line)}</td></tr>`,
    )
    .join("");
  return `<section id="runs"><h2>Runs</h2><input id="filter" type="search" placeholder="filter runs (task, suite, model, FAIL…)"><table id="runs-table"><thead><tr><th>suite</th><th>task</th><th>run</th><th>format</th><th>model</th><th>result</th><th>score</th><th>turns</th><th>tools</th><th>failed</th><th>tokens</th><th>cost</th><th>time</th><th>notes</th><th>session</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}h1{font-size:22px}h2{font-size:17px;margin-top:28px}table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 8px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}tr.fail td{background:#fdecea}tr.expected-fail td{background:#f4f4f4;color:#555}.summary{display:flex;gap:24px;flex-wrap:wrap}.summary div{background:#f4f6f8;padding:10px 14px;border-radius:6px}.summary b{display:block;font-size:20px}.small{font-size:11px;fill:#555}svg text{font:12px system-ui,sans-serif}#filter{margin:6px 0;padding:4px;width:320px}`;
const SCRIPT = `document.getElementById("filter").addEventListener("input",function(e){var q=e.target.value.toLowerCase();document.querySelectorAll("#runs-table tbody tr").forEach(function(r){r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?"":"none"})});`;

export function renderReport(
  lines: readonly ResultLine[],
  options: { title: string; source: string },
): string {
  // Rates count only the runs that measure them: pass rates the runs expected to pass (the bad agents are
  // counted apart, as caught or not), edit success the runs that made an edit.
  const judged = lines.filter((line) => line.expect === "pass");
  const passes = judged.filter((line) => line.pass).length;
  const overall = wilson(passes, judged.length);
  const bad = lines.filter((line) => line.expect === "fail");
  const caught = bad.filter((line) => !line.pass).length;
  const unexpected = lines.filter((line) => !asExpected(line)).length;
  const cost = lines.reduce((total, line) => total + (line.costUsd ?? 0), 0);
  const unknownCost = lines.some((line) => line.costUsd === null);
  const tokens = lines.reduce((total, line) => total + line.inputTokens + line.outputTokens, 0);
  const slowest = [...lines].sort((a, b) => b.durationMs - a.durationMs).slice(0, 10);
  const expensive = [...lines]
    .sort(
      (a, b) =>
        (b.costUsd ?? 0) - (a.costUsd ?? 0) ||
        b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens),
    )
    .slice(0, 10);
  const summary = `<div class="summary"><div>runs<b id="total-runs">${lines.length}</b></div><div>passed<b id="total-pass">${passes} of ${judged.length} (${judged.length ? pct(passes / judged.length) : "–"})</b>95% CI ${pct(overall.low)} – ${pct(overall.high)}</div><div>bad agents caught<b id="total-caught">${caught} of ${bad.length}</b></div><div>not as expected<b id="total-unexpected">${unexpected}</b></div><div>tokens<b>${tokens}</b></div><div>cost<b>${usd(cost)}${unknownCost ? "+" : ""}</b>${unknownCost ? "some models' prices unknown" : ""}</div></div>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"><title>${escapeHtml(options.title)}</title><style>${STYLE}</style></head><body><h1>${escapeHtml(options.title)}</h1><p>From <code>${escapeHtml(options.source)}</code>, ${lines.length} runs.</p>${summary}${formatChart(lines)}${statsTable(
    "Pass rate by suite",
    "by-suite",
    groupStats(judged, (line) => line.suite),
  )}${statsTable(
    "Pass rate by format (runs that made an edit)",
    "by-format",
    groupStats(judged.filter(madeEdits), (line) => line.format),
    "format",
  )}${statsTable(
    "Pass rate by model",
    "by-model",
    groupStats(judged, (line) => `${line.provider}/${line.model}`),
  )}${badAgentsTable(lines)}${editBenchTable(lines)}${topTable("Slowest runs", "slowest", slowest, (line) => seconds(line.durationMs))}${topTable("Most expensive runs", "expensive", expensive, (line) => (line.costUsd === null ? `${line.inputTokens + line.outputTokens} tokens` : `${usd(line.costUsd)}, ${line.inputTokens + line.outputTokens} tokens`))}${runsTable(lines)}<script>${SCRIPT}</script></body></html>\n`;
}
