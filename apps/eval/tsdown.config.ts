import { packageBuild } from "@bridle/tooling/tsdown";

export default packageBuild({
  entry: ["src/main.ts"],
  banner: "#!/usr/bin/env node",
});
