import { packageTests } from "@bridle/tooling/vitest";

export default packageTests();
