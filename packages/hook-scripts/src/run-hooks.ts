import { type AnyHook, defineHook } from "@bridle/core";
import { blockReason, contextFrom, promptText } from "./decisions.js";
import type { ScriptContext } from "./script-context.js";

/**
 * SessionStart and UserPromptSubmit → user_prompt_submit, Stop → before_stop, PreCompact →
 * before_compaction, SubagentStart and SubagentStop → the subagent hooks.
 */
export function runHooks(scripts: ScriptContext): AnyHook[] {
  const { runner } = scripts;
  const hooks: AnyHook[] = [];
  let sessionSource: "startup" | "resume" | undefined;
  let sessionStarted = false;

  if (runner.has("SessionStart")) {
    // SessionStart runs once per session (the first run these hooks see); its output is context, which
    // only user_prompt_submit can add.
    hooks.push(
      defineHook({
        event: "run_start",
        name: "SessionStart",
        handler: (input) => {
          if (sessionStarted || input.resumed) return;
          sessionSource = input.historyLength === 0 ? "startup" : "resume";
        },
      }),
      defineHook({
        event: "user_prompt_submit",
        name: "SessionStart",
        handler: async (input) => {
          const source = sessionSource;
          if (source === undefined || sessionStarted) return;
          sessionStarted = true;
          const results = await scripts.fire("SessionStart", source, input, { source });
          for (const text of contextFrom(results)) input.addContext(text);
        },
      }),
    );
  }

  if (runner.has("UserPromptSubmit")) {
    hooks.push(
      defineHook({
        event: "user_prompt_submit",
        name: "UserPromptSubmit",
        handler: async (input) => {
          const results = await scripts.fire("UserPromptSubmit", undefined, input, {
            prompt: promptText(input.prompt),
          });
          const blocked = blockReason(results);
          if (blocked !== undefined) {
            scripts.report({ event: "UserPromptSubmit", kind: "blocked", message: blocked }, input.record);
            input.cancel(blocked);
            return;
          }
          for (const text of contextFrom(results)) input.addContext(text);
        },
      }),
    );
  }

  if (runner.has("Stop")) {
    hooks.push(
      defineHook({
        event: "before_stop",
        name: "Stop",
        handler: async (input) => {
          const results = await scripts.fire("Stop", undefined, input, {
            stop_hook_active: input.continued,
            last_assistant_message: input.finalText,
          });
          // `continue: false` wins: the agent stops whatever another hook asked.
          if (results.some(({ verdict }) => verdict.kind === "ok" && verdict.json?.continue === false))
            return;
          const reason = blockReason(results);
          if (reason === undefined) return;
          scripts.report({ event: "Stop", kind: "blocked", message: reason }, input.record);
          input.continueWith(reason);
        },
      }),
    );
  }

  if (runner.has("PreCompact")) {
    // Blocking follows Claude Code (2.1.105 on): exit 2 or `decision: "block"` keeps the transcript whole.
    hooks.push(
      defineHook({
        event: "before_compaction",
        name: "PreCompact",
        handler: async (input) => {
          const results = await scripts.fire("PreCompact", input.trigger, input, {
            trigger: input.trigger,
            custom_instructions: input.instructions,
          });
          const reason = blockReason(results);
          if (reason === undefined) return;
          scripts.report({ event: "PreCompact", kind: "blocked", message: reason }, input.record);
          input.cancel(reason);
        },
      }),
    );
  }

  if (runner.has("SubagentStart")) {
    hooks.push(
      defineHook({
        event: "before_subagent_run",
        name: "SubagentStart",
        handler: async (input) => {
          const results = await scripts.fire("SubagentStart", input.subagent, input, {
            agent_id: input.toolCallId ?? input.subagent,
            agent_type: input.subagent,
          });
          if (contextFrom(results, false).length > 0) {
            scripts.report(
              {
                event: "SubagentStart",
                kind: "ignored",
                message: "additionalContext from SubagentStart is not given to Bridle subagents",
              },
              input.record,
            );
          }
        },
      }),
    );
  }

  if (runner.has("SubagentStop")) {
    hooks.push(
      defineHook({
        event: "after_subagent_run",
        name: "SubagentStop",
        handler: async (input) => {
          const results = await scripts.fire("SubagentStop", input.subagent, input, {
            agent_id: input.toolCallId ?? input.subagent,
            agent_type: input.subagent,
            stop_hook_active: false,
            last_assistant_message: input.finalText,
          });
          if (blockReason(results) !== undefined) {
            scripts.report(
              {
                event: "SubagentStop",
                kind: "ignored",
                message:
                  "a SubagentStop hook asked the subagent to go on; Bridle cannot resume a finished subagent",
              },
              input.record,
            );
          }
        },
      }),
    );
  }
  return hooks;
}
