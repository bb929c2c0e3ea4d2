export function parseDuration(text) {
  const match = /^(\d+)s$/.exec(text);
  if (!match) throw new Error(`bad duration: ${text}`);
  return Number(match[1]);
}
