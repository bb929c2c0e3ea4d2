import { createInterface } from "node:readline/promises";
import { withOneKey } from "./one-key.js";

/** One question on the terminal (stderr), answered on stdin. */
export async function askOnTerminal(question: string, signal: AbortSignal): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await rl.question(question, { signal });
  } catch {
    return "";
  } finally {
    rl.close();
  }
}

/** One question on the terminal whose answer is one of `keys`, taken as it is typed (no Enter needed). */
export async function chooseOnTerminal(
  question: string,
  keys: readonly string[],
  signal: AbortSignal,
): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await withOneKey(rl, process.stdin, keys, () => rl.question(question, { signal }));
  } catch {
    return "";
  } finally {
    rl.close();
  }
}
