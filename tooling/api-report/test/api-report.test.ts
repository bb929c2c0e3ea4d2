import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractReport } from "../src/extract.ts";
import { type PublicPackage, publicPackages, repoRoot, reportsDir, wiredPackages } from "../src/packages.ts";

let temp: string;
// Read at collection time: each package is a test of its own below.
const packages: PublicPackage[] = await publicPackages();

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), "bridle-api-report-"));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe("public API reports", () => {
  it("cover every public package, and turbo builds each one before the check", async () => {
    const wired = await wiredPackages();
    const names = packages.map((pkg) => pkg.name.replace(/^(@bridle\/[^/]+)\/.+$/, "$1"));
    const unwired = names.filter((name) => !wired.includes(name));
    expect(unwired, "add these to tooling/api-report/package.json devDependencies").toEqual([]);
    const reports = (await readdir(reportsDir)).filter((file) => file.endsWith(".api.md"));
    const stale = reports.filter((file) => !packages.some((pkg) => `${pkg.folder}.api.md` === file));
    expect(stale, "reports of packages that no longer exist").toEqual([]);
  });

  // One test per package, each with its own time: all of them in one test ran out a single bound on a
  // loaded machine (about 30 packages, up to 20 s each there).
  describe.each(packages)("$name", (pkg) => {
    it("matches its built declarations (pnpm api:update after an intended change)", async () => {
      const outcome = await extractReport(pkg, { reportFolder: reportsDir, tempFolder: join(temp, "check") });
      expect(outcome.errors, pkg.name).toEqual([]);
      expect(
        outcome.changed,
        `public API changed without its report: compare ${outcome.reportPath} with ${outcome.builtPath}, then run pnpm api:update and review the diff`,
      ).toBe(false);
    });
  });
});

describe("a deliberate change to a public type", () => {
  // A copy of tools-fetch's built declarations, placed inside its package so that its imports (@bridle/core,
  // zod) resolve exactly as for the real one, compared against the checked-in report.
  const subject = join(repoRoot, "packages", "tools-fetch");
  let copyDir: string;

  const copyWith = async (edit: (declarations: string) => string): Promise<PublicPackage> => {
    copyDir = await mkdtemp(join(subject, ".api-check-"));
    await mkdir(join(copyDir, "dist"));
    await cp(join(subject, "package.json"), join(copyDir, "package.json"));
    const declarations = await readFile(join(subject, "dist", "index.d.ts"), "utf8");
    await writeFile(join(copyDir, "dist", "index.d.ts"), edit(declarations));
    return {
      name: "@bridle/tools-fetch",
      folder: "tools-fetch",
      dir: copyDir,
      types: join(copyDir, "dist", "index.d.ts"),
    };
  };

  afterAll(async () => {
    if (copyDir) await rm(copyDir, { recursive: true, force: true });
  });

  it("passes unedited (the copy is faithful), then fails once an option's type changes", async () => {
    const faithful = await copyWith((text) => text);
    const same = await extractReport(faithful, { reportFolder: reportsDir, tempFolder: join(temp, "same") });
    expect(same.changed).toBe(false);
    await rm(copyDir, { recursive: true, force: true });

    const option = "readonly maxRedirects?: number;";
    const edited = await copyWith((text) => {
      expect(text).toContain(option);
      return text.replace(option, "readonly maxRedirects?: string;");
    });
    const outcome = await extractReport(edited, {
      reportFolder: reportsDir,
      tempFolder: join(temp, "edited"),
    });
    expect(outcome.changed).toBe(true);
    expect(await readFile(outcome.builtPath, "utf8")).toContain("readonly maxRedirects?: string;");
    expect(await readFile(outcome.reportPath, "utf8")).toContain("readonly maxRedirects?: number;");
  });
});
