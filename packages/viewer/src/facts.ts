// The coding overlay's facts (checks, commands, changes, plans) as a person reads them: a one-line row,
// whether it is a failure, and its fields as `name: value` lines rather than raw JSON.

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function fields(data: unknown): Record<string, unknown> {
  return data !== null && typeof data === "object" && !Array.isArray(data)
    ? (data as Record<string, unknown>)
    : {};
}

/** The folded row's text. */
export function factText(kind: string, data: unknown): string {
  const d = fields(data);
  if (kind === "coding.check") return `${String(d.kind)} check ${String(d.status)}: ${String(d.command)}`;
  if (kind === "coding.command") return `command exited ${String(d.exitCode)}: ${String(d.command)}`;
  if (kind === "coding.changes" && Array.isArray(d.files)) return `${d.files.length} file(s) changed`;
  if (kind === "coding.plan" && Array.isArray(d.items)) return `plan: ${d.items.length} step(s)`;
  return clip((JSON.stringify(data) ?? "").replace(/\s+/g, " "), 160);
}

/** A check that failed, or a command that exited non-zero (a null exit: killed, no exit status). */
export function factFailed(kind: string, data: unknown): boolean {
  const d = fields(data);
  if (kind === "coding.check") return d.status === "failed";
  if (kind === "coding.command") return d.exitCode !== 0 && d.exitCode !== undefined;
  return false;
}

/**
 * The fact's fields, one per line: scalars as they are, a multi-line text indented under its name, a list
 * of scalars joined, a list of objects one item a line (`path: a.ts · added: 3`), deeper nesting as JSON.
 */
export function factLines(data: unknown): string {
  if (data === null || typeof data !== "object") return String(JSON.stringify(data) ?? "");
  if (Array.isArray(data)) return data.map((item) => `- ${inline(item)}`).join("\n");
  const lines: string[] = [];
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    if (typeof value === "string" && value.includes("\n")) {
      lines.push(
        `${name}:`,
        ...value
          .replace(/\n$/, "")
          .split("\n")
          .map((line) => `    ${line}`),
      );
    } else if (Array.isArray(value) && value.some((item) => item !== null && typeof item === "object")) {
      lines.push(`${name}: ${value.length === 0 ? "none" : ""}`.trimEnd());
      for (const item of value) lines.push(`  - ${inline(item)}`);
    } else {
      lines.push(`${name}: ${inline(value)}`);
    }
  }
  return lines.join("\n");
}

function inline(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (typeof value === "string") return value;
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(inline).join(", ");
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.every(([, v]) => v === null || typeof v !== "object"))
    return entries.map(([k, v]) => `${k}: ${inline(v)}`).join(" · ");
  return JSON.stringify(value);
}
