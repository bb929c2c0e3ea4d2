export const rows = [{ amount: 1 }, { amount: 2 }];
