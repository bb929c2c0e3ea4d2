import { type Message, type ToolResultContent, textOf } from "@bridle/core";
import { bounded } from "./output.js";
import type { CommandResult } from "./script-runner.js";

/**
 * Why a PreToolUse verdict keeps the call from running. A hook that failed denies it: a broken guard
 * must never let a call through. A deny wins over an ask (`preToolAsk`), as in Claude Code.
 */
export function preToolDenial(results: readonly CommandResult[]): string | undefined {
  for (const { command, verdict } of results) {
    if (verdict.kind === "block") return verdict.reason;
    if (verdict.kind === "error") {
      return `the PreToolUse hook \`${command.command}\` ${verdict.message}, so the call was not run; ask the user to fix the hook`;
    }
    const json = verdict.json;
    if (!json) continue;
    const specific = json.hookSpecificOutput;
    if (specific?.permissionDecision === "deny") {
      return specific.permissionDecisionReason ?? json.reason ?? "denied by a PreToolUse hook";
    }
    if (json.decision === "block") return json.reason ?? "blocked by a PreToolUse hook";
    if (json.continue === false) return json.stopReason ?? "a PreToolUse hook stopped the agent";
  }
  return undefined;
}

/** Why a PreToolUse hook wants the user to confirm the call (`permissionDecision: "ask"`), if one does. */
export function preToolAsk(results: readonly CommandResult[]): string | undefined {
  const reasons: string[] = [];
  for (const { verdict } of results) {
    const specific = verdict.kind === "ok" ? verdict.json?.hookSpecificOutput : undefined;
    if (specific?.permissionDecision === "ask") {
      reasons.push(
        bounded(specific.permissionDecisionReason ?? "a PreToolUse hook asks you to confirm this call"),
      );
    }
  }
  return reasons.length > 0 ? reasons.join("; ") : undefined;
}

/** Reasons to block given by exit code 2 or `decision: "block"` (and `continue: false`). */
export function blockReasons(results: readonly CommandResult[]): string[] {
  const reasons: string[] = [];
  for (const { verdict } of results) {
    if (verdict.kind === "block") reasons.push(verdict.reason);
    if (verdict.kind !== "ok" || !verdict.json) continue;
    if (verdict.json.decision === "block") reasons.push(bounded(verdict.json.reason ?? "blocked by a hook"));
    else if (verdict.json.continue === false)
      reasons.push(bounded(verdict.json.stopReason ?? "stopped by a hook"));
  }
  return reasons;
}

export function blockReason(results: readonly CommandResult[]): string | undefined {
  const reasons = blockReasons(results);
  return reasons.length > 0 ? reasons.join("\n\n") : undefined;
}

/** `additionalContext`, and plain stdout where Claude Code adds it as context (`plainText`). */
export function contextFrom(results: readonly CommandResult[], plainText = true): string[] {
  const texts: string[] = [];
  for (const { verdict } of results) {
    if (verdict.kind !== "ok") continue;
    const extra = verdict.json?.hookSpecificOutput?.additionalContext;
    if (extra) texts.push(bounded(extra));
    if (plainText && !verdict.json && verdict.text.trim() !== "") texts.push(bounded(verdict.text.trim()));
  }
  return texts;
}

export function promptText(prompt: readonly Message[]): string {
  return prompt
    .filter((message) => message.role === "user")
    .map((message) => textOf(message.content))
    .join("\n");
}

export function appendText(content: readonly ToolResultContent[], text: string): ToolResultContent[] {
  return [...content, { type: "text", text }];
}
