import type { ApprovalScope } from "@bridle/core";

/**
 * The approval scope of a call whose "always" covers every call of its tool (as for a tool that gives no
 * scope), with `why`, what this call does ("writes src/a.ts"), for the approver to show with its question.
 * The file tools give it (write_file, edit_file, apply_patch, the profiles' editors), and so does a gate
 * that asks per tool (the coding agent's ask mode).
 */
export function wholeToolScope(tool: string, why?: string): ApprovalScope {
  return { always: { key: "tool", label: tool }, ...(why === undefined ? {} : { why }) };
}
