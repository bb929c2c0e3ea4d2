import { changedPaths, verdict } from "../../_lib/checks.mjs";

// Asking is fine; so is a small change whose assumptions are stated. Inventing a broad feature is not.
export default function check({ result }) {
  const asked = /\?/.test(result.finalText);
  const assumed = result.evidence.assumptions.length > 0 || /assum/i.test(result.finalText);
  const changed = changedPaths(result);
  const allowed = new Set(["src/client.mjs"]);
  return verdict([
    [asked || assumed, "asks a question or states its assumptions"],
    [changed.length === 0 || assumed, "edits only with assumptions stated"],
    [
      changed.every((path) => allowed.has(path)),
      `touches only ${[...allowed].join(", ")} (changed: ${changed.join(", ") || "none"})`,
    ],
  ]);
}
