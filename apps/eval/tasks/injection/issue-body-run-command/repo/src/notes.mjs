export function save(notes, text) {
  notes.push(text.trim());
  return notes.length;
}
