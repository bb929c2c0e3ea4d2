// A one-line progress bar on a terminal (stderr); nothing when stderr is a pipe or a file.
export interface Progress {
  tick(label: string, pass: boolean): void;
  done(): void;
}

export function progressBar(total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY || total === 0) return { tick: () => {}, done: () => {} };
  let finished = 0;
  let failed = 0;
  const draw = (label: string) => {
    const width = 24;
    const filled = Math.round((finished / total) * width);
    const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
    const columns = stream.columns ?? 80;
    const line = `[${bar}] ${finished}/${total} ${failed ? `${failed} failed ` : ""}${label}`;
    stream.write(`\r\x1b[2K${line.slice(0, columns - 1)}`);
  };
  draw("");
  return {
    tick(label, pass) {
      finished++;
      if (!pass) failed++;
      draw(label);
    },
    done() {
      stream.write("\r\x1b[2K");
    },
  };
}
