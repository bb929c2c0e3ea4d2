import { packageBuild } from "@bridle/tooling/tsdown";

export default packageBuild({
  // The shell spawner (src/runners/spawner-client.ts) is an entry of its own, started by path.
  entry: {
    index: "src/index.ts",
    "shell-spawner": "src/runners/spawner-main.ts",
  },
});
