// The worker thread of RootOnlyListing (built as its own entry): walks the trees it is given, answers once.
import { parentPort, workerData } from "node:worker_threads";
import { unreadableByOthers } from "./root-only.js";

parentPort?.postMessage(unreadableByOthers(workerData as string[]));
