export function formatList(items) {
  return items.join(", ");
}
