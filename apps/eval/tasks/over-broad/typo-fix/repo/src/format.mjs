export const quote = (s) => '"' + s + '"';
export const join = (xs) => xs.join(', ');
