// The same viewer over a Postgres store: a session recorded into it exports, and the server lists and
// serves it. A throwaway cluster (or BRIDLE_DATABASE_URL's server); skipped, with the reason, without one.
import { mkdir } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { PostgresSessionStore } from "@bridle/store-postgres";
import { tempWorkspace } from "@bridle/testing";
import { type LocalPostgres, startLocalPostgres } from "@bridle/tooling/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSessionHtml, startViewServer } from "../src/index.js";
import { RECORDED, recordSession } from "./recorded.js";

let postgres: LocalPostgres | undefined;
let url = process.env.BRIDLE_DATABASE_URL ?? "";
let skip = "";
beforeAll(async () => {
  if (url) return;
  const started = await startLocalPostgres();
  if ("skip" in started) skip = started.skip;
  else {
    postgres = started;
    url = started.url;
  }
}, 120_000);
afterAll(() => postgres?.stop());

function getJson(port: number, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve(JSON.parse(body)));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a Postgres store", () => {
  it("exports a recorded session and serves it", async (context) => {
    if (skip) context.skip(`no Postgres: ${skip}`);
    const made = await tempWorkspace("bridle-viewer-pg-");
    const schema = `viewer_${process.pid}_${Date.now()}`;
    const store = await PostgresSessionStore.open({ connectionString: url, schema, max: 2 });
    try {
      const workspace = join(made.dir, "work");
      await mkdir(workspace);
      const id = await recordSession(store, workspace);
      const html = await exportSessionHtml(store, id);
      const data = JSON.parse(/id="bridle-view">(.*?)<\/script>/s.exec(html)?.[1] ?? "{}");
      expect(data.view.summary).toMatchObject({
        runs: RECORDED.runs,
        turns: RECORDED.turns,
        toolCalls: RECORDED.toolCalls,
      });

      const server = await startViewServer({ stores: [{ name: "postgres", store }] });
      try {
        const base = new URL(server.url).pathname;
        const served = (await getJson(server.port, `${base}api/s/postgres/${id}/data`)) as {
          view: { summary: { turns: number } };
        };
        expect(served.view.summary.turns).toBe(RECORDED.turns);
      } finally {
        await server.close();
      }
    } finally {
      await store.close();
      await made.cleanup();
    }
  });
});
