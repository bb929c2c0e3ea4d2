import { packageTests } from "@bridle/tooling/vitest";

export default packageTests({ testTimeout: 120_000 });
