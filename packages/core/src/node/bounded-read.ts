import { constants } from "node:fs";
import { open, readlink, realpath } from "node:fs/promises";
import { BridleError } from "../errors.js";

export interface FileBytes {
  readonly bytes: Buffer;
  /** The real path of what was opened (read from the descriptor, so a swapped symlink cannot lie about it). */
  readonly realPath: string;
}

/**
 * Reads a regular file of at most `maxBytes`. Files a repository supplies (configs, instructions, agent
 * definitions) may be anything: a FIFO would block for ever and /dev/zero would never end, so anything but
 * a regular file is refused without reading (`not_regular_file`), and no file is read past the limit
 * (`file_too_large`, also for one that grows past it while being read). The open does not wait for a FIFO's
 * writer nor take a terminal. Errors of the open itself (ENOENT, EACCES, ELOOP…) are rethrown as they
 * are, for callers that treat a missing file as "none".
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<FileBytes> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new BridleError("not_regular_file", `${path} is not a regular file`);
    if (info.size > maxBytes) throw tooLarge(path, maxBytes);
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
      if (length > maxBytes) throw tooLarge(path, maxBytes);
    }
    return { bytes: buffer.subarray(0, length), realPath: await descriptorPath(handle.fd, path) };
  } finally {
    await handle.close();
  }
}

function tooLarge(path: string, maxBytes: number): BridleError {
  return new BridleError("file_too_large", `${path} is larger than ${maxBytes} bytes`);
}

async function descriptorPath(fd: number, path: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${fd}`);
  } catch {
    return realpath(path);
  }
}
