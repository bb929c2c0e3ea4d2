import { packageBuild } from "@bridle/tooling/tsup";

export default packageBuild();
