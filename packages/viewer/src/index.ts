export { exportSessionHtml } from "./export.js";
export type { ProjectionOptions } from "./project.js";
export { type NamedStore, startViewServer, type ViewServer, type ViewServerOptions } from "./server.js";
