import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyTool } from "@bridle/core";
import { describeToolConformance } from "@bridle/testing/vitest";
import { createShellTools } from "@bridle/tools-shell";
import { createCodingOverlay } from "../src/index.js";

async function tool(name: string): Promise<AnyTool> {
  const shell = await createShellTools();
  // The workspace option is the hooks' root; tools take their call's workspace, as here.
  const overlay = await createCodingOverlay({ workspace: ".", shell: shell.environment });
  const found = overlay.tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

const manifest = (test: string) => JSON.stringify({ scripts: { test } });

describeToolConformance("git_status", { create: () => tool("git_status"), validArgs: () => ({}) });
describeToolConformance("git_diff", {
  create: () => tool("git_diff"),
  validArgs: () => ({ paths: ["src"], max_hunks: 2 }),
  invalidArgs: () => [{ scope: "everything" }, { max_hunks: 99 }, { paths: [""] }],
});
describeToolConformance("detect_checks", { create: () => tool("detect_checks"), validArgs: () => ({}) });
describeToolConformance("run_check", {
  create: () => tool("run_check"),
  validArgs: async (workspace) => {
    await writeFile(join(workspace, "package.json"), manifest("true"));
    return { kind: "test" };
  },
  slowArgs: async (workspace) => {
    await writeFile(join(workspace, "package.json"), manifest("sleep 60"));
    return { kind: "test" };
  },
  invalidArgs: () => [{ kind: "deploy" }, { kind: "test", target: "" }],
});
describeToolConformance("update_plan", {
  create: () => tool("update_plan"),
  validArgs: () => ({ plan: [{ step: "read", status: "completed" }], scope: ["src/"] }),
  invalidArgs: () => [{ plan: [] }, { plan: [{ step: "x", status: "done" }] }],
});
describeToolConformance("handoff_notes", {
  create: () => tool("handoff_notes"),
  validArgs: () => ({ risks: ["none"] }),
  invalidArgs: () => [{ risks: [""] }],
});
