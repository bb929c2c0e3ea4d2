import { ATTR } from "./attributes.js";
import type { TraceRecord } from "./jsonl-exporter.js";

function tokens(record: TraceRecord): string {
  const input = record.attributes[ATTR.inputTokens];
  const output = record.attributes[ATTR.outputTokens];
  if (typeof input !== "number" || typeof output !== "number") return "";
  const cached = record.attributes[ATTR.cacheReadTokens];
  const cache = typeof cached === "number" && cached > 0 ? ` (cached ${cached})` : "";
  return `  tokens in ${input}${cache} out ${output}`;
}

function line(record: TraceRecord): string {
  const parts = [`${record.name}  ${record.durationMs.toFixed(1)}ms${tokens(record)}`];
  const finish = record.attributes[ATTR.finishReasons];
  if (Array.isArray(finish) && finish.length) parts.push(`finish ${finish.join(",")}`);
  if (record.status.code === "error") {
    parts.push(`ERROR ${String(record.attributes[ATTR.errorType] ?? record.status.message ?? "")}`.trimEnd());
  }
  return parts.join("  ");
}

/**
 * A local trace file's spans as indented trees, one per trace, children in start order: where time went,
 * what each model call cost, which call failed. For reading a trace with no collector or UI.
 */
export function formatTraceTree(records: readonly TraceRecord[]): string {
  const ids = new Set(records.map((record) => `${record.traceId}/${record.spanId}`));
  const children = new Map<string, TraceRecord[]>();
  const roots: TraceRecord[] = [];
  for (const record of records) {
    const parentKey = record.parentSpanId ? `${record.traceId}/${record.parentSpanId}` : undefined;
    if (parentKey && ids.has(parentKey)) {
      const list = children.get(parentKey) ?? [];
      list.push(record);
      children.set(parentKey, list);
    } else {
      roots.push(record);
    }
  }
  const byStart = (a: TraceRecord, b: TraceRecord) =>
    a.startUnixNano.length - b.startUnixNano.length || (a.startUnixNano < b.startUnixNano ? -1 : 1);
  const out: string[] = [];
  const walk = (record: TraceRecord, prefix: string, branch: string, depth: number) => {
    out.push(`${prefix}${branch}${line(record)}`);
    const kids = [...(children.get(`${record.traceId}/${record.spanId}`) ?? [])].sort(byStart);
    const nextPrefix = depth === 0 ? "" : prefix + (branch === "└─ " ? "   " : "│  ");
    for (const [i, kid] of kids.entries()) {
      walk(kid, nextPrefix, i === kids.length - 1 ? "└─ " : "├─ ", depth + 1);
    }
  };
  for (const root of [...roots].sort(byStart)) walk(root, "", "", 0);
  return out.join("\n");
}
