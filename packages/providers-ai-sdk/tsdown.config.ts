import { packageBuild } from "@bridle/tooling/tsdown";

export default packageBuild();
