import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Type-checks a consumer's script (plain JavaScript, checked as TypeScript would check it) against the
 * declarations the packages shipped, resolved through their `exports` maps in the consumer's node_modules.
 * Library declarations are checked too: a shipped .d.ts that does not compile in a user's project fails.
 * Returns the compiler's report ("" when clean).
 */
export async function typecheckConsumer(dir: string, script: string): Promise<string> {
  const tsconfig = {
    compilerOptions: {
      target: "ES2023",
      lib: ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noEmit: true,
      allowJs: true,
      checkJs: true,
      skipLibCheck: false,
      types: ["node"],
      // The consumer installed no @types/node; lend it the workspace's.
      typeRoots: [join(repoRoot, "node_modules", "@types")],
    },
    files: [script],
  };
  const path = join(dir, "tsconfig.consumer.json");
  await writeFile(path, `${JSON.stringify(tsconfig, null, 2)}\n`);
  try {
    await run(join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", path], {
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024,
    });
    return "";
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ""}${stderr ?? ""}`.trim() || String(error);
  }
}
