import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Where a set of public fixtures is, or why it is not there. */
export type SharedFixtures =
  | { readonly dir: string; readonly reason?: undefined }
  | { readonly dir?: undefined; readonly reason: string };

/**
 * The public fixtures `<root>/<name>` (recorded provider streams, published skills). The root is
 * BRIDLE_SHARED_FIXTURES when set; otherwise the first `shared/fixtures` found walking up from `from`,
 * which is where CI places them beside the checkout. A user's clone has neither, and the answer then says
 * so in words a skipped test can carry. With BRIDLE_REQUIRE_SHARED_FIXTURES set (CI, which has them) an
 * absent folder throws instead, so no test that uses this can skip there.
 */
export function sharedFixtures(name: string, from: string = process.cwd()): SharedFixtures {
  const found = locate(name, from);
  if (found.reason !== undefined && process.env.BRIDLE_REQUIRE_SHARED_FIXTURES) {
    throw new Error(`BRIDLE_REQUIRE_SHARED_FIXTURES is set, but ${found.reason}`);
  }
  return found;
}

function locate(name: string, from: string): SharedFixtures {
  const configured = process.env.BRIDLE_SHARED_FIXTURES;
  if (configured) {
    const dir = resolve(configured, name);
    return existsSync(dir) ? { dir } : { reason: `${dir} (from BRIDLE_SHARED_FIXTURES) does not exist` };
  }
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, "shared", "fixtures", name);
    if (existsSync(candidate)) return { dir: candidate };
    if (dirname(dir) === dir) break;
  }
  return {
    reason: `no shared/fixtures/${name} beside the checkout (set BRIDLE_SHARED_FIXTURES to the fixtures folder)`,
  };
}
