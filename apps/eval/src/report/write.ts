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
  const linked = lines.map((line) => ({
    ...line,
    eventsPath: line.eventsPath
      ? relative(
          base,
          line.eventsPath.startsWith("/") ? line.eventsPath : `${fromResults}/${line.eventsPath}`,
        )
      : "",
  }));
  await mkdir(base, { recursive: true });
  await writeFile(
    options.file,
    renderReport(linked, { title: "bridle-eval report", source: relative(base, options.resultsFile) }),
  );
}
