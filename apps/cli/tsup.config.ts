import { packageBuild } from "@bridle/tooling/tsup";

export default packageBuild({
  entry: ["src/main.ts"],
  banner: "#!/usr/bin/env -S node --liftoff-only --optimize-for-size",
  splitting: true,
});
