import { describe, it } from "vitest";
import { sharedFixtures } from "./shared-fixtures.js";

/**
 * A vitest suite over the public fixtures `shared/fixtures/<name>` (see `sharedFixtures`). Where they are
 * absent, as in a user's clone, the suite is one skipped test whose name gives the reason, and a note goes
 * to stderr; the body is not called, so it may read the folder while collecting. With
 * BRIDLE_REQUIRE_SHARED_FIXTURES set (CI, which has the fixtures) an absent folder fails instead.
 */
export function describeWithSharedFixtures(name: string, title: string, body: (dir: string) => void): void {
  const found = sharedFixtures(name);
  if (found.dir !== undefined) {
    const dir = found.dir;
    describe(title, () => body(dir));
    return;
  }
  const reason = found.reason;
  console.warn(`skipped "${title}": ${reason}`);
  describe(title, () => {
    it.skip(`skipped: ${reason}`, () => {});
  });
}
