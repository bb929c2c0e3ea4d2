// `bridle-eval report RESULTS.jsonl... [--out FILE]`: one report over results files (several models' runs,
// the edit-format benchmark's and the task suites' together).
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { BridleEvalError } from "./errors.js";
import { writeReport } from "./report/write.js";
import { parseResultLines, type ResultLine } from "./result.js";

export async function reportCommand(argv: readonly string[]): Promise<number> {
  let parsed: { values: { out?: string | undefined }; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { out: { type: "string" } } });
  } catch (error) {
    throw new BridleEvalError("InvalidArgs", (error as Error).message);
  }
  if (parsed.positionals.length === 0) {
    throw new BridleEvalError("InvalidArgs", "usage: bridle-eval report RESULTS.jsonl... [--out FILE]");
  }
  const first = resolve(parsed.positionals[0] as string);
  const file = resolve(parsed.values.out ?? `${dirname(first)}/report.html`);
  const lines: ResultLine[] = [];
  for (const path of parsed.positionals) {
    const abs = resolve(path);
    const text = await readFile(abs, "utf8").catch(() => {
      throw new BridleEvalError("NotFound", `${path}: cannot read it`);
    });
    let parsedLines: ResultLine[];
    try {
      parsedLines = parseResultLines(text);
    } catch (error) {
      throw new BridleEvalError("InvalidResults", `${path}: ${(error as Error).message}`);
    }
    // Event and page paths are relative to their own results file: make them absolute before merging.
    const absolute = (path: string) => (path && !path.startsWith("/") ? resolve(dirname(abs), path) : path);
    lines.push(
      ...parsedLines.map((line) => ({
        ...line,
        eventsPath: absolute(line.eventsPath),
        ...(line.viewPath ? { viewPath: absolute(line.viewPath) } : {}),
      })),
    );
  }
  await writeReport(lines, { file, resultsFile: first });
  process.stderr.write(`report: ${file} (${lines.length} runs)\n`);
  return 0;
}
