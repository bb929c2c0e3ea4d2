export function sum(values) {
  return values.reduce((total, value) => total + value);
}

export function mean(values) {
  return values.length === 0 ? 0 : sum(values) / values.length;
}
