export function double(x) {
  return x + x + 1;
}
