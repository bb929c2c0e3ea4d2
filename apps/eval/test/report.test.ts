/// <reference lib="dom" />
// The HTML report as a person sees it: rendered by headless Chromium with the network blocked, checked by
// its visible text, by what its filter box does, and by the pixels of its edit-format chart.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FORMAT_COLORS } from "../src/report/html.js";
import { wilson } from "../src/report/stats.js";
import { writeReport } from "../src/report/write.js";
import { ResultLine } from "../src/result.js";

const skip = chromiumSkipReason();

/** Runs of one format: `passes` of `n` pass; the slow and costly one is recognisable by name. */
function runs(format: string, model: string, passes: number, n: number): ResultLine[] {
  return Array.from({ length: n }, (_, i) =>
    ResultLine.parse({
      taskId: `${format}-task-${i}`,
      suite: i % 2 ? "edit-format" : "bugfix",
      format,
      provider: "openai",
      model,
      script: "live",
      runIndex: 0,
      pass: i < passes,
      score: i < passes ? 1 : 0,
      notes: i < passes ? [] : ["not met: the tests pass"],
      sessionId: `${format}-${i}-0000-session`,
      eventsPath: `events/sessions/${format}-${i}.jsonl`,
      durationMs: format === "hashline" && i === 0 ? 98_765 : 1000 + i,
      turns: 3,
      toolCalls: 4,
      failedToolCalls: i < passes ? 0 : 2,
      editCalls: 1,
      failedEditCalls: i < passes ? 0 : 1,
      inputTokens: 1000,
      outputTokens: 100,
      costUsd: format === "apply_patch" && i === 0 ? 1.2345 : 0.01,
      startedAt: new Date(0).toISOString(),
    }),
  );
}

/** A line like `runs` makes, changed by `patch`. */
const one = (patch: Partial<ResultLine>): ResultLine =>
  ({ ...runs("replace", "gpt-5-mini", 1, 1)[0], ...patch }) as ResultLine;

const LINES = [
  ...runs("replace", "gpt-5-mini", 8, 10),
  ...runs("hashline", "gpt-5-mini", 3, 10),
  ...runs("apply_patch", "claude-sonnet-4-6", 10, 10),
  // A run that made no edit: it passes, and says nothing about edit success.
  one({ taskId: "question-only", suite: "secrets", editCalls: 0, viewPath: "pages/question-only.html" }),
  // A deliberately bad agent whose check failed: caught, not a failure of the harness.
  one({
    taskId: "range",
    suite: "bugfix",
    script: "sabotage-claim",
    expect: "fail",
    pass: false,
    score: 0,
    editCalls: 0,
  }),
];

describe.skipIf(skip !== undefined)(`HTML report in Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "bridle-eval-report-"));
    file = join(dir, "report.html");
    await writeReport(LINES, { file, resultsFile: join(dir, "results.jsonl") });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("the file needs nothing from the network", async () => {
    const html = await readFile(file, "utf8");
    expect(html).not.toMatch(/<(link|img|iframe)\b|src=|https?:\/\//i);
  });

  test("renders offline: totals, intervals, rankings, filter, and a chart whose bars are the rates", async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const offNetwork: string[] = [];
      await context.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith("file:")) return route.continue();
        offNetwork.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(pathToFileURL(file).href);

      // What a reader sees first.
      // Rates count the runs that measure them: the bad agent apart, the run without edits not in by-format.
      expect(await page.locator("#total-runs").innerText()).toBe("32");
      expect(await page.locator("#total-pass").innerText()).toBe("22 of 31 (71.0%)");
      expect(await page.locator("#total-caught").textContent()).toBe("1 of 1");
      expect(await page.locator("#total-unexpected").textContent()).toBe("9"); // the failures; the bad agent is as expected
      expect((await page.locator("#bad-agents tbody tr").allInnerTexts())[0]).toMatch(
        /^sabotage-claim\t1\t1\t100\.0%/,
      );
      const suiteRows = await page.locator("#by-format tbody tr").allInnerTexts();
      const hashline = suiteRows.find((row) => row.startsWith("hashline")) ?? "";
      const interval = wilson(3, 10);
      expect(hashline).toContain("30.0%");
      expect(suiteRows.find((row) => row.startsWith("replace"))).toMatch(/^replace\t10\t8\t80\.0%/);
      expect(hashline).toContain(
        `${(interval.low * 100).toFixed(1)}% – ${(interval.high * 100).toFixed(1)}%`,
      );
      const models = await page.locator("#by-model tbody tr").allInnerTexts();
      expect(models.map((row) => row.split("\t")[0])).toEqual([
        "openai/claude-sonnet-4-6",
        "openai/gpt-5-mini",
      ]);
      // The benchmark's own table: format × injected mistake (its lines carry the mistake as the script);
      // the odd-numbered runs are the edit-format suite's.
      const bench = await page.locator("#edit-bench tbody tr").allInnerTexts();
      expect(bench.map((row) => row.split("\t")[0])).toEqual([
        "apply_patch / live",
        "hashline / live",
        "replace / live",
      ]);
      expect(bench[1]).toContain("0.80");
      expect(bench[2]).toContain("0.20");
      expect(await page.locator("#slowest tbody tr").first().innerText()).toContain("hashline-task-0");
      expect(await page.locator("#expensive tbody tr").first().innerText()).toContain("$1.23");
      const link = page.locator("#runs-table a").first();
      expect(await link.getAttribute("href")).toMatch(/^events\/sessions\/.+\.jsonl$/);
      // A run with a viewer page links the page, not its raw events.
      const withPage = page.locator("#runs-table tr", { hasText: "question-only" }).locator("a");
      expect(await withPage.getAttribute("href")).toBe("pages/question-only.html");
      const bad = await page.locator("#runs-table tr", { hasText: "sabotage-claim" }).textContent();
      expect(bad).toContain("expected FAIL");

      // The filter box keeps only the failing runs.
      await page.locator("#filter").fill("FAIL");
      const visible = await page.locator("#runs-table tbody tr:visible").count();
      expect(visible).toBe(10); // the nine failures and the caught bad agent ("expected FAIL")
      await page.locator("#filter").fill("");

      // The chart: each bar's height is its rate; then the pixels of a screenshot agree.
      const bars = await page.locator("#format-chart g.bar rect").evaluateAll((rects) =>
        rects.map((rect) => ({
          format: rect.parentElement?.getAttribute("data-format"),
          height: Number(rect.getAttribute("height")),
        })),
      );
      const height = Object.fromEntries(bars.map((bar) => [bar.format, bar.height]));
      expect(height.hashline).toBeCloseTo(0.3 * 220, 0);
      expect(height.apply_patch).toBeCloseTo(220, 0);

      const png = await page.locator("#format-chart").screenshot();
      const decoder = await context.newPage();
      await decoder.setContent("<canvas></canvas>");
      const counts = await decoder.evaluate(
        async ({ data, colors }) => {
          const image = new Image();
          image.src = `data:image/png;base64,${data}`;
          await image.decode();
          const canvas = document.querySelector("canvas") as HTMLCanvasElement;
          canvas.width = image.width;
          canvas.height = image.height;
          const ctx = canvas.getContext("2d") as CanvasRenderingContext2D;
          ctx.drawImage(image, 0, 0);
          const pixels = ctx.getImageData(0, 0, image.width, image.height).data;
          const wanted = Object.entries(colors).map(([name, hex]) => ({
            name,
            rgb: [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)),
          }));
          const out: Record<string, number> = { white: 0, total: pixels.length / 4 };
          for (let i = 0; i < pixels.length; i += 4) {
            const [r, g, b] = [pixels[i] ?? 0, pixels[i + 1] ?? 0, pixels[i + 2] ?? 0];
            if (r > 245 && g > 245 && b > 245) out.white = (out.white ?? 0) + 1;
            for (const { name, rgb } of wanted) {
              if (
                Math.abs(r - (rgb[0] ?? 0)) < 6 &&
                Math.abs(g - (rgb[1] ?? 0)) < 6 &&
                Math.abs(b - (rgb[2] ?? 0)) < 6
              ) {
                out[name] = (out[name] ?? 0) + 1;
              }
            }
          }
          return out;
        },
        { data: png.toString("base64"), colors: FORMAT_COLORS },
      );
      // Not blank, and each format's colour covers an area in proportion to its pass rate.
      expect(counts.white).toBeLessThan((counts.total ?? 0) * 0.95);
      const replace = counts.replace ?? 0;
      const hashArea = counts.hashline ?? 0;
      const patch = counts.apply_patch ?? 0;
      expect(patch).toBeGreaterThan(5000);
      expect(replace / patch).toBeGreaterThan(0.7);
      expect(replace / patch).toBeLessThan(0.9);
      expect(hashArea / patch).toBeGreaterThan(0.2);
      expect(hashArea / patch).toBeLessThan(0.4);

      expect(errors).toEqual([]);
      expect(offNetwork).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
