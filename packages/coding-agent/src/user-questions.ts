// How the agent asks the person a bounded question: the ask-the-user tool and the plan's acceptance both go
// through the front door's answerer (the terminal's keys, an ACP client's permission request). Where no
// front door gives one (bridle run without a terminal, a durable worker, an eval), nobody can answer, and the
// tools tell the model so instead of waiting.

/** At most this many questions per call, each with 2 to 4 options (and always a free-text answer). */
export const MAX_QUESTIONS = 4;
export const MIN_OPTIONS = 2;
export const MAX_OPTIONS = 4;

export interface QuestionOption {
  readonly label: string;
  readonly description?: string | undefined;
}

export interface UserQuestion {
  /** A short tag shown before the question ("Auth", "Plan"). */
  readonly header: string;
  readonly question: string;
  readonly options: readonly QuestionOption[];
  /** The person may pick several options. */
  readonly multiSelect: boolean;
  /** Text shown before the question (the plan to accept), as the model wrote it. */
  readonly detail?: string | undefined;
}

/** The options picked (their labels), or what the person typed instead. */
export interface UserAnswer {
  readonly selected: readonly string[];
  readonly other?: string | undefined;
}

export interface UserQuestions {
  /**
   * One answer per question, in order; undefined when the person dismissed the questions (or the signal
   * aborted), which the tools report as "no answer".
   */
  ask(questions: readonly UserQuestion[], signal: AbortSignal): Promise<readonly UserAnswer[] | undefined>;
}

/** What the model is told where nobody can answer (no terminal, no client). */
export const NOBODY_TO_ASK =
  "nobody can answer questions here (no terminal or client to ask); proceed on your own judgement and state the assumptions you made in your answer";
