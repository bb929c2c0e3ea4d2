import { mkdir, writeFile } from "node:fs/promises";
import { dirname, relative } from "node:path";
import type { ResultLine } from "../result.js";
import { renderReport } from "./html.js";

/** Writes the self-contained report; event links are made relative to the report's folder. */
export async function writeReport(
  lines: readonly ResultLine[],
  options: { file: string; resultsFile: string },
): Promise<void> {
  const base = dirname(options.file);
  const fromResults = dirname(options.resultsFile);
  const fromReport = (path: string) => relative(base, path.startsWith("/") ? path : `${fromResults}/${path}`);
  const linked = lines.map((line) => ({
    ...line,
    eventsPath: line.eventsPath ? fromReport(line.eventsPath) : "",
    ...(line.viewPath ? { viewPath: fromReport(line.viewPath) } : {}),
  }));
  await mkdir(base, { recursive: true });
  await writeFile(
    options.file,
    renderReport(linked, { title: "bridle-eval report", source: relative(base, options.resultsFile) }),
  );
}
