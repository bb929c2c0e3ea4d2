// The ask-the-user tool and the plan's acceptance, answered at the terminal: each question with its numbered
// options and an "other" line; the person types a number (several, comma-separated, where the question takes
// several), moves through the options with the arrow keys, or types an answer of their own. An empty answer
// dismisses the questions. Asked on the session's own line reader, as approvals are.
import type { UserAnswer, UserQuestion, UserQuestions } from "@bridle/coding-agent";
import { displayText } from "./display-text.js";

/** Arrow keys while a question waits: they put an option's number on the answer line. */
export interface ArrowKeys {
  readonly input: NodeJS.ReadStream;
  /** Replace the answer being typed. */
  setLine(text: string): void;
}

interface Keypress {
  readonly name?: string;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
}

const bold = (text: string) => `\x1b[1m${text}\x1b[22m`;
const dim = (text: string) => `\x1b[2m${text}\x1b[22m`;

export class TerminalQuestions implements UserQuestions {
  readonly #ask: (question: string, signal: AbortSignal) => Promise<string>;
  readonly #say: (text: string) => void;
  readonly #arrows: ArrowKeys | undefined;

  constructor(
    ask: (question: string, signal: AbortSignal) => Promise<string>,
    say: (text: string) => void,
    arrows?: ArrowKeys,
  ) {
    this.#ask = ask;
    this.#say = say;
    this.#arrows = arrows;
  }

  async ask(
    questions: readonly UserQuestion[],
    signal: AbortSignal,
  ): Promise<readonly UserAnswer[] | undefined> {
    const answers: UserAnswer[] = [];
    for (const question of questions) {
      const answer = await this.#one(question, signal);
      if (!answer || signal.aborted) return undefined;
      answers.push(answer);
    }
    return answers;
  }

  async #one(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer | undefined> {
    const other = question.options.length + 1;
    const lines = [""];
    if (question.detail) lines.push(displayText(question.detail, 8_000), "");
    lines.push(`${bold(`[${displayText(question.header, 12)}]`)} ${displayText(question.question, 300)}`);
    question.options.forEach((option, i) => {
      const about = option.description ? dim(` — ${displayText(option.description, 200)}`) : "";
      lines.push(`  ${i + 1}) ${displayText(option.label, 60)}${about}`);
    });
    lines.push(`  ${other}) Other: type your own answer`);
    this.#say(`${lines.join("\n")}\n`);
    const how = question.multiSelect ? "numbers, comma-separated" : "a number";
    const line = (
      await this.#withArrows(other, () => this.#ask(`Answer (${how}, ↑/↓, or type; Enter): `, signal))
    ).trim();
    if (!line) return undefined;
    const picked = parsePicks(line, other, question.multiSelect);
    if (!picked) return { selected: [], other: line };
    if (picked.includes(other)) {
      const typed = (await this.#ask("Your answer: ", signal)).trim();
      return typed ? { selected: [], other: typed } : undefined;
    }
    return { selected: picked.map((n) => question.options[n - 1]?.label ?? "") };
  }

  /** While the question waits, ↑ and ↓ step through the numbers 1..last on the answer line. */
  async #withArrows<T>(last: number, question: () => Promise<T>): Promise<T> {
    const arrows = this.#arrows;
    if (!arrows) return question();
    let at = 0;
    const onKey = (_text: string | undefined, key: Keypress | undefined) => {
      if (key?.ctrl || key?.meta || (key?.name !== "up" && key?.name !== "down")) return;
      at = key.name === "down" ? (at % last) + 1 : at <= 1 ? last : at - 1;
      arrows.setLine(String(at));
    };
    arrows.input.on("keypress", onKey);
    try {
      return await question();
    } finally {
      arrows.input.off("keypress", onKey);
    }
  }
}

/** "2" or "1, 3" as option numbers (1..last), or undefined when the line is not numbers (typed text). */
function parsePicks(line: string, last: number, multi: boolean): number[] | undefined {
  if (!/^\d+(\s*,\s*\d+)*$/.test(line)) return undefined;
  const numbers = [...new Set(line.split(",").map((part) => Number(part.trim())))];
  if (numbers.some((n) => n < 1 || n > last)) return undefined;
  if (!multi && numbers.length > 1) return undefined;
  return numbers;
}
