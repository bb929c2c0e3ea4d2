// The ask-the-user tool in the profile's vocabulary (seed 003): `request_user_input` in Codex's shape for the
// generic and openai profiles, `AskUserQuestion` in Claude Code's for the anthropic one. Bounded: at most 4
// questions of 2 to 4 options, and the person may always type an answer of their own instead.
import { type AnyTool, defineTool, ToolFailure, type ToolOutput } from "@bridle/core";
import { z } from "zod";
import type { ProfileChoice } from "./settings.js";
import {
  MAX_OPTIONS,
  MAX_QUESTIONS,
  MIN_OPTIONS,
  NOBODY_TO_ASK,
  type UserAnswer,
  type UserQuestion,
  type UserQuestions,
} from "./user-questions.js";

const option = z.object({
  label: z.string().min(1).max(60),
  description: z.string().max(200).describe("What choosing it means"),
});
const options = z.array(option).min(MIN_OPTIONS).max(MAX_OPTIONS);

const codexSchema = z.object({
  questions: z
    .array(
      z.object({
        id: z.string().min(1).max(40).describe("snake_case key for the answer"),
        header: z.string().min(1).max(12),
        question: z.string().min(1).max(300),
        options,
      }),
    )
    .min(1)
    .max(MAX_QUESTIONS),
});

const claudeSchema = z.object({
  questions: z
    .array(
      z.object({
        question: z.string().min(1).max(300),
        header: z.string().min(1).max(12),
        options,
        multiSelect: z.boolean(),
      }),
    )
    .min(1)
    .max(MAX_QUESTIONS),
});

const DESCRIPTION =
  "Ask the user 1-4 questions with 2-4 options each when a choice is theirs to make; they may also type their own answer.";

/** What the person answered, one line per question, as the model reads it. */
function answerLine(answer: UserAnswer): string {
  return answer.other !== undefined ? `(typed) ${answer.other}` : answer.selected.join(", ");
}

async function askPerson(
  questions: UserQuestions | undefined,
  asked: readonly UserQuestion[],
  signal: AbortSignal,
): Promise<readonly UserAnswer[]> {
  if (!questions) throw new ToolFailure("Denied", NOBODY_TO_ASK);
  const answers = await questions.ask(asked, signal);
  if (!answers || answers.length !== asked.length)
    throw new ToolFailure(
      "Denied",
      "the user dismissed the questions without answering; proceed on your own judgement, or ask again differently",
    );
  return answers;
}

export function createAskUserTool(profile: ProfileChoice, questions: UserQuestions | undefined): AnyTool {
  if (profile === "anthropic") {
    return defineTool({
      name: "AskUserQuestion",
      description: DESCRIPTION,
      inputSchema: claudeSchema,
      annotations: { read_only: true },
      sequential: true,
      async execute(args, env): Promise<ToolOutput> {
        const asked: UserQuestion[] = args.questions.map((q) => ({ ...q }));
        const answers = await askPerson(questions, asked, env.signal);
        const pairs = asked.map((q, i) => `"${q.question}"="${answerLine(answers[i] as UserAnswer)}"`);
        return {
          content: `User has answered your questions: ${pairs.join(", ")}. Continue with these answers in mind.`,
          details: { answers },
        };
      },
    });
  }
  return defineTool({
    name: "request_user_input",
    description: DESCRIPTION,
    inputSchema: codexSchema,
    annotations: { read_only: true },
    sequential: true,
    async execute(args, env): Promise<ToolOutput> {
      const asked: UserQuestion[] = args.questions.map((q) => ({ ...q, multiSelect: false }));
      const answers = await askPerson(questions, asked, env.signal);
      const byId = Object.fromEntries(
        args.questions.map((q, i) => {
          const answer = answers[i] as UserAnswer;
          return [
            q.id,
            { answers: answer.other !== undefined ? [`user_note: ${answer.other}`] : answer.selected },
          ];
        }),
      );
      return { content: JSON.stringify({ answers: byId }), details: { answers } };
    },
  });
}
