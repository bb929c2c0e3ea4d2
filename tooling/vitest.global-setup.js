// Runs once per vitest process, before any test worker starts: tests get a config folder of their own, so a
// test that pauses for approval (which creates the user's approval key) or remembers a trusted workspace
// never writes into the real ~/.config/bridle of whoever runs the tests. Workers inherit the variable.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), "bridle-test-config-"));
  const previous = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = dir;
  return () => {
    if (previous === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
