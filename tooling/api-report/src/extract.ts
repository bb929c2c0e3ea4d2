import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { Extractor, ExtractorConfig, ExtractorLogLevel, type IConfigFile } from "@microsoft/api-extractor";
import type { PublicPackage } from "./packages.ts";

export interface ReportOutcome {
  readonly name: string;
  /** The report checked in, etc/<folder>.api.md. */
  readonly reportPath: string;
  /** The report of the declarations as built now. */
  readonly builtPath: string;
  /** The built API differs from the checked-in report (or there is none). */
  readonly changed: boolean;
  /** API Extractor's errors (a declaration it cannot analyse). */
  readonly errors: readonly string[];
}

/**
 * Runs API Extractor over a package's built entry declarations and compares the report with the one in
 * `reportFolder`. With `update`, the checked-in report is replaced by the new one.
 */
export async function extractReport(
  pkg: PublicPackage,
  options: { readonly reportFolder: string; readonly tempFolder: string; readonly update?: boolean },
): Promise<ReportOutcome> {
  await readFile(pkg.types).catch(() => {
    throw new Error(`${pkg.name}: ${pkg.types} is missing; run pnpm build first`);
  });
  await mkdir(options.tempFolder, { recursive: true });
  const configObject: IConfigFile = {
    projectFolder: pkg.dir,
    mainEntryPointFilePath: pkg.types,
    compiler: {
      // Not the package's tsconfig: its `paths` point @bridle imports at sources, while a consumer (and
      // this report) sees the other packages' built declarations through node_modules.
      overrideTsconfig: {
        compilerOptions: {
          target: "ES2023",
          lib: ["ES2023"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          strict: true,
          skipLibCheck: true,
        },
        files: [pkg.types],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: pkg.folder,
      reportFolder: options.reportFolder,
      reportTempFolder: options.tempFolder,
      // Types reachable from the API but not exported still shape it: a change to them is a change.
      includeForgottenExports: true,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // Release tags (@public, @beta) are not used in Bridle: everything exported is public.
        "ae-missing-release-tag": { logLevel: ExtractorLogLevel.None },
        "ae-forgotten-export": { logLevel: ExtractorLogLevel.None },
      },
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
  const config = ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: undefined,
    packageJsonFullPath: join(pkg.dir, "package.json"),
  });
  const errors: string[] = [];
  const result = Extractor.invoke(config, {
    localBuild: false,
    messageCallback: (message) => {
      if (message.logLevel === ExtractorLogLevel.Error)
        errors.push(message.formatMessageWithLocation(pkg.dir));
      // Reported through the outcome instead of the console; the missing/changed report is ours to tell.
      message.handled = true;
    },
  });
  const reportPath = join(options.reportFolder, `${pkg.folder}.api.md`);
  const builtPath = join(options.tempFolder, `${pkg.folder}.api.md`);
  if (options.update && result.apiReportChanged) {
    await copyFile(builtPath, reportPath);
  }
  return { name: pkg.name, reportPath, builtPath, changed: result.apiReportChanged, errors };
}

export async function removeTemp(folder: string): Promise<void> {
  await rm(folder, { recursive: true, force: true });
}
