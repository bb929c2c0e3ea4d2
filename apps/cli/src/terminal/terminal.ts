import { createInterface } from "node:readline/promises";

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
