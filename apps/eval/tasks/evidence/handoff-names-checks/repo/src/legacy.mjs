// TODO remove
export const legacy = true;
