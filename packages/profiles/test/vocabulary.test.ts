import { toolSchemaOf } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { EDIT_FORMATS, PROFILE_NAMES } from "../src/index.js";
import { fixture } from "./helpers.js";

const expected: Record<string, Record<string, string[]>> = {
  generic: {
    replace: ["read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "bash"],
    hashline: ["read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "bash"],
    apply_patch: ["read_file", "write_file", "apply_patch", "list_dir", "glob", "grep", "bash"],
  },
  openai: {
    replace: ["shell", "read_file", "edit_file", "write_file", "list_dir", "grep_files", "update_plan"],
    hashline: ["shell", "read_file", "edit_file", "write_file", "list_dir", "grep_files", "update_plan"],
    apply_patch: ["shell", "apply_patch", "read_file", "list_dir", "grep_files", "update_plan"],
  },
  anthropic: {
    replace: ["Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "TodoWrite"],
    hashline: ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "TodoWrite"],
    apply_patch: ["Bash", "Read", "Write", "apply_patch", "Glob", "Grep", "TodoWrite"],
  },
};

describe("each profile is one vocabulary", () => {
  for (const profile of PROFILE_NAMES) {
    for (const format of EDIT_FORMATS) {
      it(`${profile} with ${format} edits shows exactly its own names, each once, each with a JSON Schema`, async () => {
        const f = await fixture();
        const tools = [...f.tools(profile, format).values()];
        expect(tools.map((tool) => tool.name)).toEqual(expected[profile]?.[format]);
        for (const tool of tools) {
          const schema = toolSchemaOf(tool);
          expect(schema.inputSchema.type).toBe("object");
          expect(schema.description.length).toBeGreaterThan(10);
        }
      });
    }
  }

  it("carries apply_patch's grammar for free-form providers in the openai profile only", async () => {
    const f = await fixture();
    expect(f.tools("openai", "apply_patch").get("apply_patch")?.format?.syntax).toBe("lark");
    expect(f.tools("anthropic", "apply_patch").get("apply_patch")?.format).toBeUndefined();
    expect(f.tools("generic", "apply_patch").get("apply_patch")?.format).toBeUndefined();
  });

  it("uses Claude Code's and Codex's argument names", async () => {
    const f = await fixture();
    const props = (profile: "openai" | "anthropic", name: string) =>
      Object.keys(
        (toolSchemaOf(f.tools(profile, "replace").get(name) as never).inputSchema.properties as object) ?? {},
      );
    expect(props("anthropic", "Read")).toEqual(["file_path", "offset", "limit"]);
    expect(props("anthropic", "Edit")).toEqual(["file_path", "old_string", "new_string", "replace_all"]);
    expect(props("anthropic", "MultiEdit")).toEqual(["file_path", "edits"]);
    expect(props("anthropic", "Write")).toEqual(["file_path", "content"]);
    expect(props("anthropic", "Bash")).toEqual(["command", "timeout", "description"]);
    expect(props("anthropic", "Glob")).toEqual(["pattern", "path"]);
    expect(props("anthropic", "Grep")).toEqual(
      expect.arrayContaining(["pattern", "path", "glob", "output_mode", "-i", "-n", "-C", "head_limit"]),
    );
    expect(props("anthropic", "TodoWrite")).toEqual(["todos"]);
    expect(props("openai", "shell")).toEqual([
      "command",
      "workdir",
      "timeout_ms",
      "sandbox_permissions",
      "justification",
    ]);
    expect(props("openai", "read_file")).toEqual(["file_path", "offset", "limit"]);
    expect(props("openai", "list_dir")).toEqual(["dir_path", "offset", "limit", "depth"]);
    expect(props("openai", "grep_files")).toEqual(["pattern", "include", "path", "limit"]);
    expect(props("openai", "update_plan")).toEqual(["explanation", "plan"]);
  });
});
