export function clamp(x, lo, hi) {
  return Math.min(lo, Math.max(hi, x));
}
