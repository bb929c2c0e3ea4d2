import { constants } from "node:fs";
import { open, readlink, realpath } from "node:fs/promises";
import { CliError } from "./cli-error.js";

export interface FileBytes {
  readonly bytes: Buffer;
  /** The real path of what was opened (read from the descriptor, so a swapped symlink cannot lie about it). */
  readonly realPath: string;
}

/**
 * Reads a regular file of at most `maxBytes`. Config files come from repositories: a FIFO would block the
 * start for ever and /dev/zero would never end, so anything but a regular file is refused without reading,
 * and a file is never read past the limit. ENOENT is rethrown as is for callers that treat it as "none".
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<FileBytes> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new CliError(`${path} is not a regular file`, 2);
    if (info.size > maxBytes) throw new CliError(`${path} is larger than ${maxBytes} bytes`, 2);
    // Sized to the file (one byte more, to see it grow); grown only if it does, never past the limit.
    let buffer = Buffer.allocUnsafe(Math.min(info.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new CliError(`${path} is larger than ${maxBytes} bytes`, 2);
    }
    return { bytes: buffer.subarray(0, length), realPath: await descriptorPath(handle.fd, path) };
  } finally {
    await handle.close();
  }
}

async function descriptorPath(fd: number, path: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${fd}`);
  } catch {
    return realpath(path);
  }
}
