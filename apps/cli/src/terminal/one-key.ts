// Answers that are one key: an approval's y, n or a takes effect as it is typed, without Enter. The line
// reader still owns the line (editing, Ctrl-C, the echo); a key that makes the whole line one of the
// answers submits it, as Enter would.
import type { Interface } from "node:readline";

/** Runs `ask` (a question on `rl`) so that typing one of `keys` alone on the line answers it at once. */
export async function withOneKey(
  rl: Pick<Interface, "line" | "write">,
  input: NodeJS.ReadStream,
  keys: readonly string[],
  ask: () => Promise<string>,
): Promise<string> {
  // Registered after the reader's own listener, so the key is already on the line when this sees it.
  const onKeypress = (text: string | undefined) => {
    if (text === undefined || rl.line.length !== 1) return;
    if (keys.includes(rl.line.toLowerCase())) rl.write(null, { name: "return" });
  };
  input.on("keypress", onKeypress);
  try {
    return await ask();
  } finally {
    input.off("keypress", onKeypress);
  }
}
