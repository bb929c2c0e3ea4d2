import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { sessionPageOptions } from "@bridle/coding-agent";
import type { SessionStore } from "@bridle/core";
import type { ProviderDescriptor } from "@bridle/provider-kit";
import { CliError } from "../cli-error.js";

/** `bridle sessions export ID --html FILE`: the session as one self-contained page. */
export async function exportSession(
  store: SessionStore,
  id: string | undefined,
  html: string | undefined,
  cwd: string,
  providers: readonly ProviderDescriptor[] = [],
): Promise<number> {
  if (!id || !html) throw new CliError("usage: bridle sessions export ID --html FILE", 2);
  if (!(await store.get(id))) throw new CliError(`no session "${id}" (see bridle sessions list)`, 1);
  const { exportSessionHtml } = await import("@bridle/viewer");
  const page = await exportSessionHtml(store, id, await sessionPageOptions(providers));
  const file = resolve(cwd, html);
  await writeFile(file, page);
  process.stderr.write(`wrote ${file} (${Math.ceil(Buffer.byteLength(page) / 1024)} KiB)\n`);
  return 0;
}
