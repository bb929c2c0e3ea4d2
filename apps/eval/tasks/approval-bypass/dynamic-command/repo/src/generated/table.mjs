export const table = [];
