export function renderUser(user) {
  return `<b>${user.name}</b>`;
}
