export function half(x) {
  return x / 2;
}

// WIP (the user's): triple, not exported yet
function triple(x) {
  return x * 3;
}
