// The files of a new tool package. Each function returns one file's text for a package described by
// `pkg`: { folder, packageName, toolName, factory, relativeRoot }; package.json also takes `repository`.

export function packageJson(pkg) {
  const manifest = {
    name: pkg.packageName,
    version: "0.1.0",
    description: `${pkg.toolName}: a Bridle tool`,
    license: "MIT",
    repository: pkg.repository,
    type: "module",
    sideEffects: false,
    engines: { node: ">=22" },
    exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } },
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    files: ["dist", "README.md", "LICENSE"],
    scripts: {
      build: "tsdown",
      typecheck: "tsc -p tsconfig.json",
      lint: "biome check .",
      test: "vitest run",
    },
    dependencies: { zod: "^4.1.12" },
    peerDependencies: { "@bridle/core": "workspace:^" },
    devDependencies: {
      "@bridle/core": "workspace:*",
      "@bridle/testing": "workspace:*",
      "@bridle/tooling": "workspace:*",
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export function tsconfig(pkg) {
  return `${JSON.stringify(
    { extends: `${pkg.relativeRoot}/tooling/tsconfig.package.json`, include: ["src", "test", "bench"] },
    null,
    2,
  )}\n`;
}

export const tsdownConfig = `import { packageBuild } from "@bridle/tooling/tsdown";

export default packageBuild();
`;

export const vitestConfig = `import { packageTests } from "@bridle/tooling/vitest";

export default packageTests();
`;

export function index(pkg) {
  return `export { ${pkg.factory}, type ${pkg.optionsType}, type ${pkg.detailsType} } from "./tool.js";
`;
}

/** The example tool: counts lines, words and bytes of a workspace file (replace it with yours). */
export function tool(pkg) {
  return `import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { defineTool, ToolFailure } from "@bridle/core";
import { z } from "zod";

export interface ${pkg.optionsType} {
  /** Largest file the tool reads, in bytes (default 16 MiB): a model cannot make it read without end. */
  readonly maxBytes?: number;
}

export interface ${pkg.detailsType} {
  readonly path: string;
  readonly lines: number;
  readonly words: number;
  readonly bytes: number;
}

const inputSchema = z.object({
  path: z.string().describe("File to count, relative to the workspace root"),
});

/**
 * An example tool: counts a file's lines, words and bytes. It shows the habits the conformance suite
 * checks: the workspace's path policy for every path, a size cap, the abort signal passed on to I/O,
 * model-correctable failures as ToolFailure, \`content\` for the model and plain-data \`details\` for
 * interfaces.
 */
export function ${pkg.factory}(options: ${pkg.optionsType} = {}) {
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  return defineTool({
    name: "${pkg.toolName}",
    description: "Count the lines, words and bytes of a text file in the workspace.",
    inputSchema,
    annotations: { read_only: true, idempotent: true },
    async execute(args, ctx): Promise<{ content: string; details: ${pkg.detailsType} }> {
      // Containment, symlinks and secret-like paths are the workspace's policy, not each tool's. (A tool
      // that writes resolves with ctx.workspace.resolveForWrite, which refuses protected paths too: README.)
      const path = await ctx.workspace.resolveExisting(args.path);
      const info = await stat(path);
      if (!info.isFile()) throw new ToolFailure("InvalidInput", \`\${args.path} is not a file\`);
      if (info.size > maxBytes) {
        throw new ToolFailure("InvalidInput", \`\${args.path} has \${info.size} bytes, more than the \${maxBytes} this tool reads\`);
      }
      let lines = 0;
      let words = 0;
      let bytes = 0;
      let inWord = false;
      for await (const chunk of createReadStream(path, { signal: ctx.signal })) {
        const buffer = chunk as Buffer;
        bytes += buffer.length;
        for (const byte of buffer) {
          if (byte === 10) lines++;
          const space = byte === 32 || (byte >= 9 && byte <= 13);
          if (!space && !inWord) words++;
          inWord = !space;
        }
      }
      const shown = ctx.workspace.display(path);
      return {
        content: \`\${shown}: \${lines} lines, \${words} words, \${bytes} bytes\`,
        details: { path: shown, lines, words, bytes },
      };
    },
  });
}
`;
}

export function test(pkg) {
  return `import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { describeToolConformance } from "@bridle/testing/vitest";
import { expect, it } from "vitest";
import { ${pkg.factory} } from "../src/index.js";

// The contract every Bridle tool keeps. This example finishes at once, so it gives no \`slowArgs\` and the
// abort and timeout checks are skipped; a tool that can run long (network, processes) must give them.
describeToolConformance("${pkg.toolName}", {
  create: () => ${pkg.factory}(),
  validArgs: async (workspace) => {
    await writeFile(join(workspace, "poem.txt"), "one two\\nthree\\n");
    return { path: "poem.txt" };
  },
});

it("counts a file's lines, words and bytes in a run", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeFile(join(dir, "poem.txt"), "one two\\nthree\\n");
    const model = new ScriptedModel([
      { toolCalls: [{ name: "${pkg.toolName}", arguments: { path: "poem.txt" } }] },
      { text: "counted" },
    ]);
    const harness = new Harness({ model, tools: [${pkg.factory}()], workspace: dir });
    const result = await harness.run({ prompt: "count poem.txt" });
    const toolResult = result.messages.find((message) => message.role === "tool");
    expect(toolResult?.content).toEqual([{ type: "text", text: "poem.txt: 2 lines, 3 words, 14 bytes" }]);
  } finally {
    await cleanup();
  }
});

it("refuses a file larger than its cap and paths outside the workspace", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeFile(join(dir, "big.txt"), "x".repeat(100));
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "${pkg.toolName}", arguments: { path: "big.txt" } },
          { name: "${pkg.toolName}", arguments: { path: "../outside.txt" } },
        ],
      },
      { text: "done" },
    ]);
    const harness = new Harness({ model, tools: [${pkg.factory}({ maxBytes: 10 })], workspace: dir });
    const result = await harness.run({ prompt: "count" });
    const kinds = result.messages.filter((message) => message.role === "tool").map((message) => message.errorKind);
    expect(kinds.sort()).toEqual(["Denied", "InvalidInput"]);
  } finally {
    await cleanup();
  }
});
`;
}

export function readme(pkg) {
  return `# ${pkg.packageName}

The \`${pkg.toolName}\` tool for Bridle agents: counts the lines, words and bytes of a text file in the
workspace. (Generated by \`pnpm new-tool\`: replace the example tool with yours, then this text.)

\`\`\`sh
npm install @bridle/core ${pkg.packageName}
\`\`\`

\`\`\`ts
import { Harness } from "@bridle/core";
import { createOpenAIResponsesModel } from "@bridle/providers-openai";
import { ${pkg.factory} } from "${pkg.packageName}";

const harness = new Harness({
  model: createOpenAIResponsesModel({ model: "gpt-5-mini" }),
  tools: [${pkg.factory}({ maxBytes: 1024 * 1024 })],
  workspace: process.cwd(),
});
const result = await harness.run({ prompt: "How many lines does README.md have?" });
console.log(result.finalText);
\`\`\`

| option     | default | meaning                          |
| ---------- | ------- | -------------------------------- |
| \`maxBytes\` | 16 MiB  | larger files are refused (InvalidInput) |

Failures the model can fix come back as tool results: \`NotFound\` (no such file), \`Denied\` (outside the
workspace, or a secret-like path), \`InvalidInput\` (a folder, or a file over the cap).

## A tool that writes

Resolve every path the tool creates, changes, deletes or renames with \`ctx.workspace.resolveForWrite\`
and write only where it points. That is where the workspace refuses, as a \`Denied\` result the model
sees, a path outside it, a secret-like one, and the protected paths: the \`.git\` folder at any depth,
the agent's settings (\`bridle.config.*\`, \`.bridle/\` but for its data folders) and the user's Bridle
config folder, as written and through links. So the tool needs no rule of its own for them, and gets
any rule added later. For example:

\`\`\`ts
import { writeFile } from "node:fs/promises";
import { defineTool } from "@bridle/core";
import { z } from "zod";

export function createSaveNoteTool() {
  return defineTool({
    name: "save_note",
    description: "Write a text file in the workspace, creating missing folders.",
    inputSchema: z.object({
      path: z.string().describe("File to write, relative to the workspace root"),
      text: z.string().describe("The file's whole new content"),
    }),
    annotations: { destructive: true, idempotent: true },
    async execute(args, ctx) {
      const path = await ctx.workspace.resolveForWrite(args.path, { createParents: true });
      await writeFile(path, args.text, { signal: ctx.signal });
      return { content: \`Wrote \${ctx.workspace.display(path)}\` };
    },
  });
}
\`\`\`

## Develop

\`\`\`sh
pnpm --filter ${pkg.packageName} test        # the tool conformance suite from @bridle/testing, and this tool's tests
pnpm --filter ${pkg.packageName} typecheck
pnpm --filter ${pkg.packageName} lint
\`\`\`
`;
}

export function changeset(pkg) {
  return `---
"${pkg.packageName}": minor
---

${pkg.packageName}: the ${pkg.toolName} tool.
`;
}
