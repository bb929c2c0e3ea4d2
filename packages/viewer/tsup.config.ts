import { packageBuild } from "@bridle/tooling/tsup";
import { defineConfig } from "tsup";
import { esbuildPagePlugin } from "./page-bundle.mjs";

export default defineConfig({ ...packageBuild(), esbuildPlugins: [esbuildPagePlugin] });
