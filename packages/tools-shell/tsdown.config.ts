import { packageBuild } from "@bridle/tooling/tsdown";

export default packageBuild({
  // The shell spawner (src/runners/spawner-client.ts) and the root-only files' walk (a worker thread,
  // src/sandbox/root-only.ts) are entries of their own, started by path.
  entry: {
    index: "src/index.ts",
    "shell-spawner": "src/runners/spawner-main.ts",
    "root-only-walk": "src/sandbox/root-only-walk.ts",
  },
});
