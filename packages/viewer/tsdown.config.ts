import { packageBuild } from "@bridle/tooling/tsdown";
import { pagePlugin } from "./page-bundle.mjs";

export default packageBuild({}, { plugins: [pagePlugin] });
