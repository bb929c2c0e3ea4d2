// Wipes secrets from this process's exec-time environment in place, so the CLI needs no second process
// image to keep them out of /proc/<pid>/environ. That file shows the bytes between the kernel's env_start
// and env_end addresses of the process's own memory; the process may write its own memory through
// /proc/self/mem. Each secret is first re-set (setenv copies it to the heap and repoints environ at the
// copy), then its original bytes are zeroed, then /proc/self/environ is read back: only a verified wipe
// counts, and anything short of one leaves the caller to re-execute instead.
// Only node: modules here: the test runs this file in a fresh process as it is.
import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/**
 * Zeroes every `NAME=value` entry of `names` in the exec-time environment, keeping the values in
 * process.env. Returns true only when /proc/self/environ no longer holds any of them.
 */
export function scrubEnviron(names: readonly string[]): boolean {
  const env = process.env;
  if (process.platform !== "linux" || names.length === 0) return names.length === 0;
  let fd: number | undefined;
  try {
    const region = environRegion();
    if (!region) return false;
    // Re-set each value first: environ then points at a heap copy, never at the bytes zeroed below.
    for (const name of names) {
      const value = env[name];
      if (value !== undefined) env[name] = `${value}`;
    }
    fd = openSync("/proc/self/mem", "r+");
    const bytes = Buffer.alloc(region.end - region.start);
    if (readSync(fd, bytes, 0, bytes.length, region.start) !== bytes.length) return false;
    const wanted = new Set(names);
    let at = 0;
    while (at < bytes.length) {
      let end = bytes.indexOf(0, at);
      if (end < 0) end = bytes.length;
      const entry = bytes.subarray(at, end);
      const equals = entry.indexOf(0x3d);
      if (equals > 0 && wanted.has(entry.subarray(0, equals).toString("utf8"))) {
        if (writeSync(fd, Buffer.alloc(entry.length), 0, entry.length, region.start + at) !== entry.length)
          return false;
      }
      at = end + 1;
    }
    return !holdsAny(readFileSync("/proc/self/environ"), wanted);
  } catch {
    // No /proc, a kernel or security module that refuses the write: the caller re-executes.
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** env_start and env_end: fields 50 and 51 of /proc/self/stat (Linux ≥ 3.5), counted after the name. */
function environRegion(): { start: number; end: number } | undefined {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // The command name (field 2) is in parentheses and may hold spaces; field 3 starts after ") ".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start > 0 && end > start))
    return undefined;
  return { start, end };
}

function holdsAny(environ: Buffer, names: ReadonlySet<string>): boolean {
  for (const entry of environ.toString("utf8").split("\0")) {
    const equals = entry.indexOf("=");
    if (equals > 0 && names.has(entry.slice(0, equals))) return true;
  }
  return false;
}
