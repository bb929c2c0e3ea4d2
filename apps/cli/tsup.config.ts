import { packageBuild } from "@bridle/tooling/tsup";

export default packageBuild({
  entry: ["src/main.ts"],
  banner: "#!/usr/bin/env -S node --optimize-for-size",
  splitting: true,
});
