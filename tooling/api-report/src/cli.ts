// Checks (or with --update, rewrites) etc/<package>.api.md for every public package.
// Usage: node --experimental-strip-types tooling/api-report/src/cli.ts [--update]
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractReport, removeTemp } from "./extract.ts";
import { publicPackages, reportsDir } from "./packages.ts";

const update = process.argv.includes("--update");
const tempFolder = join(tmpdir(), `bridle-api-report-${process.pid}`);
let failed = false;
try {
  for (const pkg of await publicPackages()) {
    const outcome = await extractReport(pkg, { reportFolder: reportsDir, tempFolder, update }).catch(
      (error: unknown) => {
        console.error(error instanceof Error ? error.message : String(error));
        failed = true;
        return undefined;
      },
    );
    if (!outcome) continue;
    for (const error of outcome.errors) console.error(`${pkg.name}: ${error}`);
    if (outcome.errors.length > 0) failed = true;
    if (!outcome.changed) console.log(`${pkg.name}: unchanged`);
    else if (update) console.log(`${pkg.name}: report updated (${outcome.reportPath})`);
    else {
      failed = true;
      const built = await readFile(outcome.builtPath, "utf8");
      console.error(`${pkg.name}: the public API differs from ${outcome.reportPath}\n${built}`);
    }
  }
} finally {
  await removeTemp(tempFolder);
}
process.exitCode = failed ? 1 : 0;
