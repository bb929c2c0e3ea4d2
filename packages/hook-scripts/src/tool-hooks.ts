import { type AnyHook, defineHook, textOf } from "@bridle/core";
import { appendText, blockReasons, contextFrom, preToolAsk, preToolDenial } from "./decisions.js";
import type { ScriptContext } from "./script-context.js";
import type { ClaudeHookEvent } from "./settings.js";

/** PreToolUse → before_tool_call; PostToolUse and PostToolUseFailure → after_tool_call. */
export function toolHooks(scripts: ScriptContext): AnyHook[] {
  const { runner } = scripts;
  const hooks: AnyHook[] = [];
  // PreToolUse's additionalContext waits for the call's result: that is where the model reads it.
  const pending = new Map<string, string[]>();

  if (runner.has("PreToolUse")) {
    hooks.push(
      defineHook({
        event: "before_tool_call",
        name: "PreToolUse",
        handler: async (input) => {
          const results = await scripts.fire("PreToolUse", input.toolCall.name, input, {
            tool_name: input.toolCall.name,
            tool_input: input.args,
            tool_use_id: input.toolCall.id,
          });
          const denied = preToolDenial(results);
          if (denied !== undefined) {
            scripts.report(
              { event: "PreToolUse", kind: "blocked", message: `${input.toolCall.name}: ${denied}` },
              input.record,
            );
            input.cancel(denied);
            return;
          }
          const ask = preToolAsk(results);
          if (ask !== undefined) input.requireApproval(ask);
          for (const { verdict } of results) {
            const updated =
              verdict.kind === "ok" ? verdict.json?.hookSpecificOutput?.updatedInput : undefined;
            if (updated !== undefined) input.replaceArgs(updated);
          }
          const context = contextFrom(results, false);
          if (context.length > 0) pending.set(input.toolCall.id, context);
        },
      }),
    );
  }

  if (runner.has("PreToolUse") || runner.has("PostToolUse") || runner.has("PostToolUseFailure")) {
    hooks.push(
      defineHook({
        event: "after_tool_call",
        name: "PostToolUse",
        handler: async (input) => {
          const feedback = pending.get(input.toolCall.id) ?? [];
          pending.delete(input.toolCall.id);
          const failed = input.result.isError;
          const event: ClaudeHookEvent = failed ? "PostToolUseFailure" : "PostToolUse";
          if (runner.has(event)) {
            const output = textOf(input.result.content);
            const results = await scripts.fire(event, input.toolCall.name, input, {
              tool_name: input.toolCall.name,
              tool_input: input.args,
              tool_use_id: input.toolCall.id,
              ...(failed ? { error: output } : { tool_response: input.result.details ?? { output } }),
            });
            // The tool has run: a block or added context reaches the model beside its result.
            feedback.push(...blockReasons(results), ...contextFrom(results, false));
          }
          if (feedback.length === 0) return;
          input.rewrite(appendText(input.result.content, `[hook feedback]\n${feedback.join("\n\n")}`));
        },
      }),
    );
  }
  return hooks;
}
