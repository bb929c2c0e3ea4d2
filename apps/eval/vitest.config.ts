import { packageTests } from "@bridle/tooling/vitest";

export default packageTests({ testTimeout: 60_000 });
