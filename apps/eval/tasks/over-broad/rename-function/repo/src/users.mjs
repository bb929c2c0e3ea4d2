export function getUsr(id) {
  return { id, name: `user ${id}` };
}
