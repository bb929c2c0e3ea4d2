export function badInput(value) {
  return new Error(`recieved a bad value: ${value}`);
}
