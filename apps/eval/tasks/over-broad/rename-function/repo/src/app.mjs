import { getUsr } from "./users.mjs";

export function greeting(id) {
  return `hi ${getUsr(id).name}`;
}
