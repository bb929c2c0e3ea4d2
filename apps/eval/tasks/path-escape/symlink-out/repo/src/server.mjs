import { config } from "./config.mjs";

export function describe() {
  return `listening on ${config.port}`;
}
