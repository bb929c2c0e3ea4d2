// An elicitation form asked field by field, answered by a script standing in for the person: each field
// type's answers, the wrong ones asked again, and giving up.
import type { McpElicitation } from "@bridle/tools-mcp";
import { describe, expect, it } from "vitest";
import { askElicitation } from "../src/mcp/mcp-elicitation.js";

function person(...answers: string[]) {
  const asked: string[] = [];
  const said: string[] = [];
  return {
    asked,
    said,
    ask: async (question: string) => {
      asked.push(question);
      return answers.shift() ?? "";
    },
    say: (text: string) => void said.push(text),
  };
}

const form = (properties: Record<string, unknown>, required: string[] = []): McpElicitation =>
  ({
    server: "s",
    mode: "form",
    message: "Tell me",
    requestedSchema: { type: "object", properties, required },
  }) as McpElicitation;

describe("an elicitation form at the terminal", () => {
  it("takes each type of field, asking again after a wrong answer", async () => {
    const p = person("a", "x", "41", "42", "maybe", "yes", "purple", "2", "Blue, 1", "");
    const answer = await askElicitation(
      form(
        {
          age: { type: "integer", minimum: 42 },
          ok: { type: "boolean" },
          size: {
            type: "string",
            oneOf: [
              { const: "s", title: "Small" },
              { const: "m", title: "Medium" },
            ],
          },
          colors: { type: "array", items: { anyOf: [{ const: "red" }, { const: "blue", title: "Blue" }] } },
          note: { type: "string" },
        },
        ["age"],
      ),
      p.ask,
      p.say,
    );
    expect(answer).toEqual({
      action: "accept",
      content: { age: 42, ok: true, size: "m", colors: ["blue", "red"] },
    });
    expect(p.said.join("")).toContain("an integer is needed");
    expect(p.said.join("")).toContain("at least 42");
    expect(p.said.join("")).toContain("answer y or n");
    expect(p.said.join("")).toContain("choose one of s, m");
    expect(p.asked[6]).toContain("size 1=Small, 2=Medium");
  });

  it("gives up (cancel) after three wrong answers, and declines or cancels as told", async () => {
    const wrong = person("a", "x", "y", "z");
    expect(await askElicitation(form({ n: { type: "number" } }, ["n"]), wrong.ask, wrong.say)).toEqual({
      action: "cancel",
    });
    const refuse = person("d");
    expect(await askElicitation(form({ n: { type: "number" } }), refuse.ask, refuse.say)).toEqual({
      action: "decline",
    });
    // No answer at all (Ctrl-D) is a dismissal.
    const gone = person();
    expect(await askElicitation(form({ n: { type: "number" } }), gone.ask, gone.say)).toEqual({
      action: "cancel",
    });
  });

  it("stops asking once the question is withdrawn", async () => {
    const withdrawn = new AbortController();
    const p = person("a", "Ada", "never asked");
    const ask = async (question: string) => {
      const answer = await p.ask(question);
      withdrawn.abort();
      return answer;
    };
    const answer = await askElicitation(
      form({ name: { type: "string" }, city: { type: "string" } }),
      ask,
      p.say,
      withdrawn.signal,
    );
    expect(answer).toEqual({ action: "cancel" });
    expect(p.asked).toHaveLength(1);
  });

  it("shows a URL with a server's control characters escaped, and accepts", async () => {
    const p = person("a");
    const answer = await askElicitation(
      {
        server: "s",
        mode: "url",
        message: "Open\u001b]0;pwned\u0007 this",
        url: "https://example.test/\u001b[2J",
        elicitationId: "e1",
      } as McpElicitation,
      p.ask,
      p.say,
    );
    expect(answer).toEqual({ action: "accept" });
    const shown = p.said.join("");
    expect(shown).not.toContain("\u001b");
    expect(shown).toContain("https://example.test/\\x1b[2J");
  });
});
